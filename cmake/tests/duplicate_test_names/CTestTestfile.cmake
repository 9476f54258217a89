# A fixture for cmake:the_unique_name_check_sees_a_duplicate: two tests of one name, as two chapter folders that each
# registered the same canary once made.
add_test(twice_registered "true")
add_test(registered_once "true")
add_test(twice_registered "true")

; JavaScript and TypeScript alike. The first pattern that matches a node gives its role.
; Calls: by name, as a method, through `new`.
(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: (property_identifier) @reference.call))
(call_expression function: (member_expression property: (private_property_identifier) @reference.call))
(new_expression constructor: (identifier) @reference.call)
(new_expression constructor: (member_expression property: (property_identifier) @reference.call))
; Imports: the names an import brings in, and those it renames.
(import_specifier name: (identifier) @reference.import)
(import_specifier alias: (identifier) @reference.import)
(import_clause (identifier) @reference.import)
(namespace_import (identifier) @reference.import)
; Writes: assignment targets, increments, declarations with a value.
(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (member_expression property: (property_identifier) @reference.write))
(augmented_assignment_expression left: (identifier) @reference.write)
(augmented_assignment_expression left: (member_expression property: (property_identifier) @reference.write))
(update_expression argument: (identifier) @reference.write)
(variable_declarator name: (identifier) @reference.write value: (_))
(shorthand_property_identifier_pattern) @reference.write
(for_in_statement left: (identifier) @reference.write)
; Declared without a value: variables, parameters.
(variable_declarator name: (identifier) @reference.other)
(catch_clause parameter: (identifier) @reference.other)
; Everything else is read.
(identifier) @reference.read
(property_identifier) @reference.read
(private_property_identifier) @reference.read
(shorthand_property_identifier) @reference.read

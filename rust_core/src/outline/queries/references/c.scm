; C (and the C part of C++) references. The first pattern that matches a node gives its role.
; Calls: a function called by name, or through a field (`ops->open(file)`).
(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (parenthesized_expression (identifier) @reference.call))
; Writes: the left side of an assignment, an increment, a declaration with a value.
(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (field_expression field: (field_identifier) @reference.write))
(update_expression argument: (identifier) @reference.write)
(update_expression argument: (field_expression field: (field_identifier) @reference.write))
(init_declarator declarator: (identifier) @reference.write)
(init_declarator declarator: (pointer_declarator declarator: (identifier) @reference.write))
(init_declarator declarator: (array_declarator declarator: (identifier) @reference.write))
; Declared without a value: parameters, variables, fields, prototypes, enumerators, object-like
; macros and the parameters of function-like ones.
(declaration declarator: (identifier) @reference.other)
(parameter_declaration declarator: (identifier) @reference.other)
(pointer_declarator declarator: (identifier) @reference.other)
(array_declarator declarator: (identifier) @reference.other)
(function_declarator declarator: (identifier) @reference.other)
(parenthesized_declarator (identifier) @reference.other)
(field_declaration declarator: (field_identifier) @reference.other)
(pointer_declarator declarator: (field_identifier) @reference.other)
(array_declarator declarator: (field_identifier) @reference.other)
(function_declarator declarator: (field_identifier) @reference.other)
(enumerator name: (identifier) @reference.other)
(preproc_def name: (identifier) @reference.other)
(preproc_params (identifier) @reference.other)
; Everything else: types are types, other names are read.
(type_identifier) @reference.type
(identifier) @reference.read
(field_identifier) @reference.read

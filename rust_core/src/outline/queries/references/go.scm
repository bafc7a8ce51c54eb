; Go references. The first pattern that matches a node gives its role.
; Calls: by name, through a package or a value (`fmt.Println`, `r.Read`), generic ones.
(call_expression function: (identifier) @reference.call)
(call_expression function: (selector_expression field: (field_identifier) @reference.call))
(call_expression function: (index_expression operand: (identifier) @reference.call))
; Imports: the name a package is bound to.
(import_spec name: (package_identifier) @reference.import)
; Writes: assignment and declaration targets, increments, range variables.
(assignment_statement left: (expression_list (identifier) @reference.write))
(assignment_statement left: (expression_list (selector_expression field: (field_identifier) @reference.write)))
(short_var_declaration left: (expression_list (identifier) @reference.write))
(inc_statement (identifier) @reference.write)
(dec_statement (identifier) @reference.write)
(inc_statement (selector_expression field: (field_identifier) @reference.write))
(dec_statement (selector_expression field: (field_identifier) @reference.write))
(range_clause left: (expression_list (identifier) @reference.write))
(var_spec name: (identifier) @reference.write value: (_))
(const_spec name: (identifier) @reference.write)
; Declared without a value: variables, parameters, fields, the package's own name.
(var_spec name: (identifier) @reference.other)
(parameter_declaration name: (identifier) @reference.other)
(variadic_parameter_declaration name: (identifier) @reference.other)
(field_declaration name: (field_identifier) @reference.other)
(package_clause (package_identifier) @reference.other)
; Everything else: types are types, other names are read.
(type_identifier) @reference.type
(identifier) @reference.read
(field_identifier) @reference.read
(package_identifier) @reference.read

; Rust references. The first pattern that matches a node gives its role.
; Calls: functions by name or path, methods, generic ones, macros.
(call_expression function: (identifier) @reference.call)
(call_expression function: (scoped_identifier name: (identifier) @reference.call))
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (generic_function function: (identifier) @reference.call))
(call_expression function: (generic_function function: (scoped_identifier name: (identifier) @reference.call)))
(call_expression function: (generic_function function: (field_expression field: (field_identifier) @reference.call)))
(macro_invocation macro: (identifier) @reference.call)
(macro_invocation macro: (scoped_identifier name: (identifier) @reference.call))
; Imports: the last name of each `use` path, and the name an `as` binds.
(use_declaration argument: (identifier) @reference.import)
(use_declaration argument: (scoped_identifier name: (identifier) @reference.import))
(use_as_clause path: (identifier) @reference.import)
(use_as_clause path: (scoped_identifier name: (identifier) @reference.import))
(use_as_clause alias: (identifier) @reference.import)
(use_list (identifier) @reference.import)
(use_list (scoped_identifier name: (identifier) @reference.import))
; Writes: assignment targets, `let` with a value.
(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (field_expression field: (field_identifier) @reference.write))
(compound_assignment_expr left: (identifier) @reference.write)
(compound_assignment_expr left: (field_expression field: (field_identifier) @reference.write))
(let_declaration pattern: (identifier) @reference.write value: (_))
; Declared without a value: `let` without one, parameters, fields, variants.
(let_declaration pattern: (identifier) @reference.other)
(parameter pattern: (identifier) @reference.other)
(field_declaration name: (field_identifier) @reference.other)
(enum_variant name: (identifier) @reference.other)
; Everything else: types are types, other names are read.
(type_identifier) @reference.type
(identifier) @reference.read
(field_identifier) @reference.read

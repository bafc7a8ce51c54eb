; Java references. The first pattern that matches a node gives its role.
; Calls: methods by name, constructors through `new`.
(method_invocation name: (identifier) @reference.call)
(object_creation_expression type: (type_identifier) @reference.call)
(object_creation_expression type: (generic_type (type_identifier) @reference.call))
(object_creation_expression type: (scoped_type_identifier (type_identifier) @reference.call .))
(explicit_constructor_invocation constructor: (_) @reference.call)
; Imports: the imported name (the class, or a static member).
(import_declaration (scoped_identifier name: (identifier) @reference.import))
(import_declaration (identifier) @reference.import)
; Writes: assignment targets, increments, declarations with a value.
(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (field_access field: (identifier) @reference.write))
(update_expression (identifier) @reference.write)
(variable_declarator name: (identifier) @reference.write value: (_))
; Declared without a value: variables, fields, parameters, enum constants, the package.
(variable_declarator name: (identifier) @reference.other)
(formal_parameter name: (identifier) @reference.other)
(spread_parameter (variable_declarator name: (identifier) @reference.other))
(catch_formal_parameter name: (identifier) @reference.other)
(enum_constant name: (identifier) @reference.other)
(package_declaration (scoped_identifier name: (identifier) @reference.other))
(package_declaration (identifier) @reference.other)
; Types: annotations are types too.
(marker_annotation name: (identifier) @reference.type)
(annotation name: (identifier) @reference.type)
(type_identifier) @reference.type
; Everything else is read.
(identifier) @reference.read

; C++ beyond C: qualified calls and names, namespaces, constructors called with `new`.
(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(call_expression function: (template_function name: (identifier) @reference.call))
(call_expression function: (field_expression field: (template_method name: (field_identifier) @reference.call)))
(new_expression type: (type_identifier) @reference.call)
(using_declaration (qualified_identifier name: (identifier) @reference.import))
(namespace_identifier) @reference.read

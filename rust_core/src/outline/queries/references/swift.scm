; Swift references. The first pattern that matches a node gives its role.
(call_expression (simple_identifier) @reference.call)
(call_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @reference.call)))
(import_declaration (identifier (simple_identifier) @reference.import))
(type_identifier) @reference.type
(simple_identifier) @reference.read

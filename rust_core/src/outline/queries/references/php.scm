; PHP references. The first pattern that matches a node gives its role.
(function_call_expression function: (name) @reference.call)
(function_call_expression function: (qualified_name (name) @reference.call .))
(member_call_expression name: (name) @reference.call)
(scoped_call_expression name: (name) @reference.call)
(object_creation_expression (name) @reference.call)
(namespace_use_clause (qualified_name (name) @reference.import .))
(namespace_use_clause (name) @reference.import)
(assignment_expression left: (variable_name (name) @reference.write))
(simple_parameter name: (variable_name (name) @reference.other))
(named_type (name) @reference.type)
(name) @reference.read

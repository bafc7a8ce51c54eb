; C# references. The first pattern that matches a node gives its role.
(invocation_expression function: (identifier) @reference.call)
(invocation_expression function: (member_access_expression name: (identifier) @reference.call))
(invocation_expression function: (generic_name (identifier) @reference.call))
(object_creation_expression type: (identifier) @reference.call)
(using_directive (identifier) @reference.import)
(using_directive (qualified_name name: (identifier) @reference.import))
(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (member_access_expression name: (identifier) @reference.write))
(variable_declarator name: (identifier) @reference.write)
(parameter name: (identifier) @reference.other)
(identifier) @reference.read

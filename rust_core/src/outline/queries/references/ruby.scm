; Ruby references. The first pattern that matches a node gives its role. A bare name without
; arguments may be a call or a local: it is read.
(call method: (identifier) @reference.call)
(call method: (constant) @reference.call)
(assignment left: (identifier) @reference.write)
(operator_assignment left: (identifier) @reference.write)
(method_parameters (identifier) @reference.other)
(block_parameters (identifier) @reference.other)
(superclass (constant) @reference.type)
(identifier) @reference.read
(constant) @reference.read

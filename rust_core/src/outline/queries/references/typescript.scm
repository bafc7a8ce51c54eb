; TypeScript only: parameters, and names used as types.
(required_parameter pattern: (identifier) @reference.other)
(optional_parameter pattern: (identifier) @reference.other)
(type_identifier) @reference.type

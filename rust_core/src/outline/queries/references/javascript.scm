; JavaScript only: plain parameters.
(formal_parameters (identifier) @reference.other)

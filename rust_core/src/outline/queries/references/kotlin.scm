; Kotlin references. The first pattern that matches a node gives its role.
(call_expression (identifier) @reference.call)
(call_expression (navigation_expression (identifier) @reference.call .))
(import (qualified_identifier (identifier) @reference.import .))
(user_type (identifier) @reference.type)
(identifier) @reference.read

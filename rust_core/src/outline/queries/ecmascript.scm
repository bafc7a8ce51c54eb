; JavaScript and TypeScript alike: classes, functions, methods, and functions given a name by
; a variable, an assignment or an object's key.
(class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (_) @name) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(assignment_expression
  left: [(identifier) @name (member_expression property: (_) @name)]
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(function_expression name: (identifier) @name) @definition.function
(generator_function name: (identifier) @name) @definition.function

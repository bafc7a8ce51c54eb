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
; A function assigned to a prototype's property or to `this.m` is a method (ctags' kind); these
; come before the plain assignment below, as where two patterns match one node the first wins.
; In a chain of two, `a.m = b.m = function`, the first is named here (as ctags names it) and
; the second by its own assignment.
(assignment_expression
  left: (member_expression
    object: (member_expression property: (property_identifier) @_prototype)
    property: (_) @name)
  right: [
    (arrow_function) (function_expression) (generator_function)
    (assignment_expression
      right: [(arrow_function) (function_expression) (generator_function)])
  ]
  (#eq? @_prototype "prototype")) @definition.method
; An existing function given to a prototype, `C.prototype.m = cMethod` (lodash, jsbn: how such
; code defines a class's methods), is a method there too, as ctags lists it; the value is a name,
; so it may be no function at all (ctags cannot tell either).
(assignment_expression
  left: (member_expression
    object: (member_expression property: (property_identifier) @_prototype)
    property: (_) @name)
  right: [
    (identifier) (member_expression)
    (assignment_expression right: [(identifier) (member_expression)])
  ]
  (#eq? @_prototype "prototype")) @definition.method
(assignment_expression
  left: (member_expression object: (this) property: (_) @name)
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(assignment_expression
  left: [(identifier) @name (member_expression property: (_) @name)]
  right: [
    (arrow_function) (function_expression) (generator_function)
    (assignment_expression
      right: [(arrow_function) (function_expression) (generator_function)])
  ]) @definition.function
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
; A quoted key (`'catch': function`) is named without its quotes, as ctags names it.
(pair
  key: (string (string_fragment) @name)
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(function_expression name: (identifier) @name) @definition.function
(generator_function name: (identifier) @name) @definition.function

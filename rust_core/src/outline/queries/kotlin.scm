; Kotlin: classes and interfaces (one declaration node, told apart by its keyword), objects,
; functions and type aliases.
(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(type_alias type: (identifier) @name) @definition.type

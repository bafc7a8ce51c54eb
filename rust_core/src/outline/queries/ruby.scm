; Ruby: classes, modules and methods (every `def` is a method in Ruby).
(class name: (_) @name) @definition.class
(singleton_class value: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method

; C++ beyond C: classes, namespaces, type aliases.
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(namespace_definition name: (_) @name) @definition.module
(alias_declaration name: (type_identifier) @name) @definition.type

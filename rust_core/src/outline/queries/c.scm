; C (and the C part of C++): function definitions (named by their declarator), tagged types
; with a body, typedefs and function-like macros.
(function_definition) @definition.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition) @definition.type
(preproc_function_def name: (identifier) @name) @definition.macro
; A function whose head is a macro (the kernel's `SYSCALL_DEFINE3(open, ...) { ... }`): the
; grammar, which cannot expand it, reads a call followed by a block at the top of the file. The
; block is its body (@body: the definition ends where it does, and encloses what is in it).
(translation_unit
  (expression_statement (call_expression function: (identifier) @name)) @definition.function
  .
  (compound_statement) @body)

; Bash and POSIX shell: functions.
(function_definition name: (word) @name) @definition.function

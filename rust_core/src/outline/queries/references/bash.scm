; Bash references: commands run (a call), variables set and read.
(command name: (command_name (word) @reference.call))
(variable_assignment name: (variable_name) @reference.write)
(variable_name) @reference.read

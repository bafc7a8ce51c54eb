; Markdown: an ATX heading names the section it opens (the section is its line range); the
; grammar gives a setext heading (a line underlined with === or ---) no section of its own.
(section (atx_heading heading_content: (_) @name)) @definition.heading
(setext_heading heading_content: (_) @name) @definition.heading

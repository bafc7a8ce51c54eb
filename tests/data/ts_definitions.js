// TypeScript's language service as an oracle of where a JavaScript reference is defined
// (tests/test_binding_oracles.py). Reads from stdin a JSON list of positions [path, line,
// column] (relative to the root given as the first argument; 1-based, the column in UTF-16
// units, which is in characters for the BMP) and writes one JSON answer per position: the
// definitions `getDefinitionAtPosition` gives there, each as [path, line, column, kind, name]
// (the position of the definition's name). Every .js file under the root is one program
// (allowJs, CommonJS resolution); a bare module name is looked for as a directory of the root
// (`paths: {"*": ["*"]}`), as node finds Debian's packages in its global folder.
"use strict";

const fs = require("fs");
const path = require("path");
const { service: languageService } = require("./ts_service.js");

const root = path.resolve(process.argv[2]);
const queries = JSON.parse(fs.readFileSync(0, "utf8"));
const { service, program, where } = languageService(root, {
    baseUrl: root,
    paths: { "*": ["*"] },
});

const answers = queries.map(([file, line, column]) => {
    const full = path.join(root, file);
    const source = program.getSourceFile(full);
    if (!source) {
        return [];
    }
    let found;
    try {
        const position = source.getPositionOfLineAndCharacter(line - 1, column - 1);
        found = service.getDefinitionAtPosition(full, position) || [];
    } catch (error) {
        return [];
    }
    return found.map((d) => [...where(d.fileName, d.textSpan.start), d.kind, d.name]);
});
process.stdout.write(JSON.stringify(answers));

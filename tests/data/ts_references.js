// TypeScript's language service as an oracle of JavaScript references
// (tests/test_reference_oracles.py). Reads from stdin a JSON list of positions
// [path, line, column] (relative to the root given as the first argument; 1-based, the column
// in UTF-16 units, which is in characters for the BMP) and writes one JSON answer per position:
// the symbols `findReferences` resolves there, each as its definition's position and its
// references' positions with a flag for those TypeScript calls definitions. Every .js file
// under the root is one program (allowJs, CommonJS resolution), so references across modules
// follow require() and exports as the language service follows them.
"use strict";

const fs = require("fs");
const path = require("path");
const { service: languageService } = require("./ts_service.js");

const root = path.resolve(process.argv[2]);
const queries = JSON.parse(fs.readFileSync(0, "utf8"));
const { service, program, where } = languageService(root, {});

const answers = queries.map(([file, line, column]) => {
    const full = path.join(root, file);
    const source = program.getSourceFile(full);
    if (!source) {
        return [];
    }
    let symbols;
    try {
        const position = source.getPositionOfLineAndCharacter(line - 1, column - 1);
        symbols = service.findReferences(full, position) || [];
    } catch (error) {
        return [];
    }
    return symbols.map((symbol) => ({
        definition: where(symbol.definition.fileName, symbol.definition.textSpan.start),
        references: symbol.references.map((r) => [
            ...where(r.fileName, r.textSpan.start),
            r.isDefinition ? 1 : 0,
        ]),
    }));
});
process.stdout.write(JSON.stringify(answers));

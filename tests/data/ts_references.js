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
const ts = require("typescript");

const root = path.resolve(process.argv[2]);
const queries = JSON.parse(fs.readFileSync(0, "utf8"));

const files = [];
(function walk(dir) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
            walk(full);
        } else if (/\.(c|m)?js$/.test(entry.name)) {
            files.push(full);
        }
    }
})(root);

const options = {
    allowJs: true,
    checkJs: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.NodeJs,
    maxNodeModuleJsDepth: 0,
};
const host = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => files,
    getScriptVersion: () => "1",
    getScriptSnapshot: (name) =>
        fs.existsSync(name) ? ts.ScriptSnapshot.fromString(fs.readFileSync(name, "utf8")) : undefined,
    getCurrentDirectory: () => root,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();

function where(fileName, start) {
    const source = program.getSourceFile(fileName);
    const at = source.getLineAndCharacterOfPosition(start);
    return [path.relative(root, fileName), at.line + 1, at.character + 1];
}

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

// TypeScript's language service over every .js file under a root, as one program (allowJs,
// CommonJS resolution), for the oracle scripts beside this file (ts_references.js,
// ts_definitions.js). `service(root, more)` returns the service, its program and `where`,
// which turns a file and an offset into [path relative to the root, 1-based line, 1-based
// column]; `more` adds compiler options.
"use strict";

const fs = require("fs");
const path = require("path");
const ts = require("typescript");

function service(root, more) {
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
        ...more,
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
    const languageService = ts.createLanguageService(host, ts.createDocumentRegistry());
    const program = languageService.getProgram();
    function where(fileName, start) {
        const source = program.getSourceFile(fileName);
        if (!source) {
            return [path.relative(root, fileName), 0, 0];
        }
        const at = source.getLineAndCharacterOfPosition(start);
        return [path.relative(root, fileName), at.line + 1, at.character + 1];
    }
    return { service: languageService, program, where };
}

module.exports = { service };

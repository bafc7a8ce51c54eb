// The MCP TypeScript SDK's client (npm's @modelcontextprotocol/sdk) driving `ripsight mcp` over
// stdio, as a host built on that SDK does. tests/test_mcp_ts_client.py writes a plan (JSON) and
// runs `node drive.mjs PLAN`; this prints one JSON object on stdout, which the test asserts on.
//
// The plan:
//   server:  {command, args, cwd}: the server process (it inherits this process's environment)
//   errlog:  the file the server's stderr is copied to
//   client:  {name, elicitation: {answers, delay_ms, wait_answered, answer_late} | null,
//             roots: [uri] | null, protocol_version: "2025-03-26" | null}
//   steps:   what to do, in order (see STEPS below); a call step: {op: "call", name, arguments,
//            progress, abort_on_log, abort_delay_ms, tamper, ref_from, delay_ms, timeout}
//
// The output: {protocol_version, server_info, instructions, steps: [one result per step],
// questions: [the elicitation messages, in order], logs: [the server's log messages],
// roots_asked: n, errors: [what the client reported with onerror]}.
//
// The SDK's own behaviour is what is tested: its Client validates every structuredContent
// against the outputSchema of the tool listed before (it throws on a mismatch or a missing
// structuredContent), an AbortSignal sends notifications/cancelled, an `onprogress` option
// sends a progress token, and its handlers answer elicitation/create and roots/list.

import { readFileSync, createWriteStream } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));

/** The server's stderr, line by line, with waiters for a line matching a pattern. */
class Stderr {
    constructor(stream, errlog) {
        this.lines = [];
        this.waiters = [];
        this.buffered = '';
        const copy = errlog ? createWriteStream(errlog) : null;
        stream.setEncoding('utf8');
        stream.on('data', chunk => {
            copy?.write(chunk);
            this.buffered += chunk;
            const parts = this.buffered.split('\n');
            this.buffered = parts.pop();
            for (const line of parts) {
                this.lines.push(line);
                this.waiters = this.waiters.filter(waiter => !waiter(line));
            }
        });
    }

    /**
     * The first line matching `pattern` (its match array), among the lines from number `since`
     * on (default: those still to come); rejects after `timeout` ms.
     */
    waitFor(pattern, timeout, since = this.lines.length) {
        const regex = new RegExp(pattern);
        const seen = this.lines.slice(since).map(line => regex.exec(line)).find(match => match !== null);
        if (seen) return Promise.resolve([...seen]);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.waiters = this.waiters.filter(waiter => waiter !== check);
                reject(new Error(`no stderr line matched ${pattern} within ${timeout} ms`));
            }, timeout);
            const check = line => {
                const match = regex.exec(line);
                if (match === null) return false;
                clearTimeout(timer);
                resolve([...match]);
                return true;
            };
            this.waiters.push(check);
        });
    }
}

/**
 * The stdio transport, with two things a test needs around it: the protocol version the client
 * offers at initialize (the SDK always offers its latest; a host pinned to an older one offers
 * that), and a way to alter the next tools/call result on its way in (to show that the SDK's
 * own output-schema check catches a result that does not match).
 */
class TestTransport {
    constructor(inner, offeredVersion) {
        this.inner = inner;
        this.offeredVersion = offeredVersion;
        this.negotiated = null;
        this.tampers = new Map(); // request id -> function altering that call's result
        this.nextTamper = null;
        inner.onmessage = message => {
            const tamper = this.tampers.get(message.id);
            if (tamper && message.result) {
                this.tampers.delete(message.id);
                tamper(message.result);
            }
            if (message.result?.protocolVersion && message.result?.serverInfo) {
                this.negotiated = message.result.protocolVersion;
            }
            this.onmessage?.(message);
        };
        inner.onerror = error => this.onerror?.(error);
        inner.onclose = () => this.onclose?.();
    }

    start() {
        return this.inner.start();
    }

    close() {
        return this.inner.close();
    }

    send(message, options) {
        if (message.method === 'initialize' && this.offeredVersion) {
            message = { ...message, params: { ...message.params, protocolVersion: this.offeredVersion } };
        }
        if (message.method === 'tools/call' && this.nextTamper) {
            this.tampers.set(message.id, this.nextTamper);
            this.nextTamper = null;
        }
        return this.inner.send(message, options);
    }
}

/** How a result is altered on its way in, by name (the `tamper` of a call step). */
const TAMPERS = {
    // A field of the wrong type: the outputSchema's check must refuse it.
    wrong_type: result => {
        const [first] = Object.keys(result.structuredContent);
        result.structuredContent[first] = { unexpected: true };
    },
    // A required field left out.
    missing_field: result => {
        const [first] = Object.keys(result.structuredContent);
        delete result.structuredContent[first];
    },
    // No structuredContent at all from a tool that declares an outputSchema.
    no_structured: result => {
        delete result.structuredContent;
    }
};

function errorOf(error) {
    return { error: { name: error?.name ?? null, code: error?.code ?? null, message: String(error?.message ?? error) } };
}

const questions = [];
let rootsAsked = 0;
let roots = plan.client.roots ?? null;

const capabilities = {};
if (plan.client.elicitation) capabilities.elicitation = {};
if (roots !== null) capabilities.roots = { listChanged: true };
const client = new Client({ name: plan.client.name ?? 'ripsight-ts-test', version: '0.0.0' }, { capabilities });

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
let answered = 0; // tools/call results received so far

/** Resolves once `condition()` holds (true), or after `timeout` ms (false). */
async function until(condition, timeout) {
    const deadline = Date.now() + timeout;
    while (!condition()) {
        if (Date.now() > deadline) return false;
        await sleep(20);
    }
    return true;
}

if (plan.client.elicitation) {
    // The person: answers each question from the list, after `delay_ms`, or once `wait_answered`
    // calls were answered (`answer_late` when that does not happen within 20 s).
    const { answers, delay_ms: delay = 0, wait_answered: calls = 0, answer_late: late } = plan.client.elicitation;
    client.setRequestHandler(ElicitRequestSchema, async request => {
        questions.push(request.params.message);
        if (delay) await sleep(delay);
        if (calls && !(await until(() => answered >= calls, 20_000))) return late;
        const answer = answers.shift();
        if (answer === undefined) throw new Error('the test gave no answer for this question');
        return answer;
    });
}
if (roots !== null) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
        rootsAsked += 1;
        return { roots: roots.map(uri => ({ uri })) };
    });
}

// The server's log messages (notifications/message), once the client set a level.
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, notification => {
    logs.push(notification.params);
});

const stdio = new StdioClientTransport({
    command: plan.server.command,
    args: plan.server.args,
    cwd: plan.server.cwd ?? undefined,
    env: Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== undefined)),
    stderr: 'pipe'
});
const stderr = new Stderr(stdio.stderr, plan.errlog);
const transport = new TestTransport(stdio, plan.client.protocol_version ?? null);

async function call(step) {
    const options = { timeout: (step.timeout ?? 120) * 1000 };
    const progress = [];
    if (step.progress) {
        options.onprogress = ({ progress: value, total, message }) => progress.push({ value, total: total ?? null, message: message ?? null });
    }
    let abort = null;
    if (step.abort_on_log) {
        const controller = new AbortController();
        options.signal = controller.signal;
        abort = stderr.waitFor(step.abort_on_log, 60_000).then(async () => {
            await sleep(step.abort_delay_ms ?? 300);
            controller.abort('the user pressed stop');
            return Date.now();
        });
    }
    if (step.delay_ms) await sleep(step.delay_ms);
    if (step.tamper) transport.nextTamper = TAMPERS[step.tamper];
    const args = { ...step.arguments };
    if (step.ref_from !== undefined) {
        // The reference (ref_...) that the text of step number `ref_from` names.
        const text = output.steps[step.ref_from].result.content[0].text;
        args.ref = /ref_[0-9a-f]+/.exec(text)?.[0];
    }
    const started = Date.now();
    let outcome;
    try {
        outcome = { result: await client.callTool({ name: step.name, arguments: args }, undefined, options) };
    } catch (error) {
        outcome = errorOf(error);
    }
    answered += 1;
    outcome.elapsed_ms = Date.now() - started;
    if (step.progress) outcome.progress = progress;
    if (abort) outcome.aborted_after_ms = (await abort) - started;
    return outcome;
}

/** What each kind of step does; each returns the step's result. */
const STEPS = {
    list_tools: async () => {
        const listed = await client.listTools();
        // The SDK compiled a validator for each tool that declares an outputSchema.
        const validated = listed.tools.filter(tool => client.getToolOutputValidator(tool.name) !== undefined).map(tool => tool.name);
        return { tools: listed.tools, validated };
    },
    call,
    gather: step => Promise.all(step.calls.map(call)),
    set_roots: async step => {
        roots = step.roots;
        await client.sendRootsListChanged();
        return { roots };
    },
    set_log_level: async step => {
        await client.setLoggingLevel(step.level);
        return { level: step.level };
    },
    // Waits (up to 10 s) until the server asked for the roots, without sending a request.
    wait_roots: async () => ({ asked: (await until(() => rootsAsked > 0, 10_000)) ? rootsAsked : 0 }),
    // A line logged since the step before this one began.
    wait_log: async (step, since) => ({ match: await stderr.waitFor(step.pattern, (step.timeout ?? 30) * 1000, since) })
};

const output = { steps: [], questions, logs, roots_asked: 0, errors: [] };
client.onerror = error => output.errors.push(String(error?.message ?? error));
try {
    await client.connect(transport);
    output.protocol_version = transport.negotiated;
    output.server_info = client.getServerVersion();
    output.instructions = client.getInstructions() ?? null;
    let since = stderr.lines.length;
    for (const step of plan.steps) {
        const before = since;
        since = stderr.lines.length;
        try {
            output.steps.push(await STEPS[step.op](step, before));
        } catch (error) {
            output.steps.push(errorOf(error));
        }
    }
} catch (error) {
    output.fatal = errorOf(error).error;
} finally {
    output.roots_asked = rootsAsked;
    await client.close();
}
process.stdout.write(JSON.stringify(output) + '\n');

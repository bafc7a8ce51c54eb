// The MCP TypeScript SDK's next major (npm's @modelcontextprotocol/client, 2.x) driving
// `ripsight mcp` over stdio on the 2026-07-28 protocol. tests/test_mcp_ts_client2.py writes a
// plan (JSON) and runs `node drive.mjs PLAN`; this prints one JSON object on stdout.
//
// The plan:
//   server:  {command, args, cwd}: the server process (it inherits this process's environment)
//   errlog:  the file the server's stderr is copied to
//   client:  {name, pin: "2026-07-28" | null, negotiation: "auto" | "legacy" (without a pin),
//             elicitation: {answers} | null}
//   steps:   {op: "list_tools"}, {op: "sleep", ms}, {op: "call", name, arguments, progress,
//            abort_after_ms, tamper} or {op: "manual", calls} (see `manual`), in order
//
// The output: {protocol_version, server_info, steps: [one result per step], questions: [each
// elicitation the handler answered: {message, requestedSchema}], wire: {input_required: n,
// server_requests: n} (what crossed stdio: tools/call results asking for input, and requests
// the server sent the client), errors: [what the client reported with onerror]}.
//
// What the SDK does itself, and is tested here: pinned to 2026-07-28 it connects without the
// 2025 initialize handshake and attaches the per-request _meta envelope; an `input_required`
// tools/call result is answered through the handler registered for `elicitation/create`, and
// the call retried with the answers and the server's requestState, inside one callTool; every
// structuredContent is validated against the outputSchema of the tool listed before.

import { readFileSync, createWriteStream } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));

const questions = [];
const wire = { input_required: 0, server_requests: 0 };

const capabilities = {};
if (plan.client.elicitation) capabilities.elicitation = { form: {} };
const client = new Client(
    { name: plan.client.name ?? 'ripsight-ts2-test', version: '0.0.0' },
    { capabilities, versionNegotiation: { mode: plan.client.pin ? { pin: plan.client.pin } : (plan.client.negotiation ?? 'legacy') } }
);

if (plan.client.elicitation) {
    // The person: answers each question from the list, in order.
    const { answers } = plan.client.elicitation;
    client.setRequestHandler('elicitation/create', async request => {
        questions.push({ message: request.params.message, requestedSchema: request.params.requestedSchema ?? null });
        const answer = answers.shift();
        if (answer === undefined) throw new Error('the test gave no answer for this question');
        return answer;
    });
}

/**
 * The SDK's stdio transport, counting what crosses it, and able to alter the next tools/call
 * result on its way in (`tamper`: to show that the client's own output-schema check refuses a
 * result that does not match). The client's behaviour is otherwise unchanged.
 */
class CountingStdio extends StdioClientTransport {
    constructor(params) {
        super(params);
        this.nextTamper = null;
        this.tampers = new Map(); // request id -> how its result is altered
        const seen = message => {
            if (message?.result?.resultType === 'input_required' || message?.result?.inputRequests) wire.input_required += 1;
            if (message?.method && message.id !== undefined) wire.server_requests += 1;
            const tamper = this.tampers.get(message?.id);
            if (tamper && message.result) {
                this.tampers.delete(message.id);
                TAMPERS[tamper](message.result);
            }
        };
        Object.defineProperty(this, 'onmessage', {
            configurable: true,
            get: () => this._onmessageCounted,
            set: handler => {
                this._onmessageCounted = handler && (message => (seen(message), handler(message)));
            }
        });
    }

    send(message, options) {
        if (message.method === 'tools/call' && this.nextTamper) {
            this.tampers.set(message.id, this.nextTamper);
            this.nextTamper = null;
        }
        return super.send(message, options);
    }
}

/** How a result is altered on its way in (a call step's `tamper`). */
const TAMPERS = {
    // A field of the wrong type.
    wrong_type: result => {
        const [first] = Object.keys(result.structuredContent);
        result.structuredContent[first] = { unexpected: true };
    },
    // No structuredContent at all from a tool that declares an outputSchema.
    no_structured: result => {
        delete result.structuredContent;
    }
};

function errorOf(error) {
    return { error: { name: error?.name ?? null, code: error?.code ?? null, message: String(error?.message ?? error) } };
}

const transport = new CountingStdio({
    command: plan.server.command,
    args: plan.server.args,
    cwd: plan.server.cwd ?? undefined,
    env: Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== undefined)),
    stderr: 'pipe'
});
const errlog = createWriteStream(plan.errlog);
transport.stderr?.pipe(errlog);

const STEPS = {
    list_tools: async () => ({ tools: (await client.listTools()).tools }),
    sleep: async step => {
        await new Promise(resolve => setTimeout(resolve, step.ms));
        return { slept_ms: step.ms };
    },
    call,
    manual
};

/**
 * Calls in the SDK's manual mode (`allowInputRequired`): an input request comes back to this
 * driver instead of the handler, and each call says what to send with it: {name, arguments,
 * state_from: i (the requestState answer i carried) or "forged" (one the server never issued),
 * keys_from: i (answer `answer` to each input request answer i carried)}. The result: each
 * answer's {resultType, keys (of its input requests), text, isError}.
 */
async function manual(step) {
    const raw = [];
    const answers = [];
    const options = { timeout: (step.timeout ?? 60) * 1000, allowInputRequired: true };
    for (const spec of step.calls) {
        const params = { name: spec.name, arguments: spec.arguments };
        if (spec.state_from !== undefined) {
            params.requestState = spec.state_from === 'forged' ? 'forged-state-never-issued' : raw[spec.state_from].requestState;
        }
        if (spec.keys_from !== undefined) {
            const keys = Object.keys(raw[spec.keys_from].inputRequests ?? {});
            params.inputResponses = Object.fromEntries(keys.map(key => [key, spec.answer]));
        }
        const result = await client.callTool(params, options);
        raw.push(result);
        answers.push({
            resultType: result.resultType ?? 'complete',
            keys: Object.keys(result.inputRequests ?? {}),
            text: result.content?.[0]?.text ?? null,
            isError: result.isError ?? null
        });
    }
    return { answers };
}

/**
 * A call step: {name, arguments, timeout (s), progress (ask for progress), abort_after_ms,
 * tamper (a name in TAMPERS)}.
 */
async function call(step) {
    const options = { timeout: (step.timeout ?? 60) * 1000 };
    const progress = [];
    if (step.progress) {
        options.onprogress = ({ progress: value, total, message }) => progress.push({ value, total: total ?? null, message: message ?? null });
    }
    if (step.abort_after_ms) {
        const controller = new AbortController();
        options.signal = controller.signal;
        setTimeout(() => controller.abort('the user pressed stop'), step.abort_after_ms);
    }
    if (step.tamper) transport.nextTamper = step.tamper;
    const started = Date.now();
    let outcome;
    try {
        outcome = { result: await client.callTool({ name: step.name, arguments: step.arguments }, options) };
    } catch (error) {
        outcome = errorOf(error);
    }
    outcome.elapsed_ms = Date.now() - started;
    if (step.progress) outcome.progress = progress;
    return outcome;
}

const output = { steps: [], questions, wire, errors: [] };
client.onerror = error => output.errors.push(String(error?.message ?? error));
try {
    await client.connect(transport);
    output.protocol_version = client.getNegotiatedProtocolVersion() ?? null;
    output.server_info = client.getServerVersion() ?? null;
    for (const step of plan.steps) {
        try {
            output.steps.push(await STEPS[step.op](step));
        } catch (error) {
            output.steps.push(errorOf(error));
        }
    }
} catch (error) {
    output.fatal = errorOf(error).error;
} finally {
    await client.close();
}
process.stdout.write(JSON.stringify(output) + '\n');

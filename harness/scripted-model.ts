/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * A chat model that follows a script: a local OpenAI-compatible server (POST /v1/chat/completions,
 * as one JSON answer or, with `stream: true`, as server-sent chunks the way OpenAI streams them,
 * tool calls included; and GET /v1/models) for n8n's OpenAI Chat Model node, so an AI Agent runs
 * offline and the same way every time. A test tool, not part of the sandbox's service API.
 *
 * The script is a list of turns. Which turn answers a request follows from the conversation the
 * request carries: the number of assistant messages after the last user message. An agent's first
 * request gets turn 0; once it has called a tool and sends the result back, turn 1; and so on. So
 * each run of an agent plays the script from its start, runs may overlap, and a request past the
 * end is answered 500 with a message saying so. Every request is recorded: what the model was
 * offered (tools, descriptions, JSON schemas) and what it got back (tool messages). Bodies are read
 * and answered with the sandbox's helpers, so a body past its cap is answered 413 and not recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { readBody, sendJson } from '../sandbox/body';
import { ApiError } from '../sandbox/errors';

export type JsonValue =
	string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface ToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

export interface ChatMessage {
	role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: ToolCall[];
	tool_call_id?: string;
	name?: string;
}

export interface OfferedTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: JsonObject; strict?: boolean };
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: OfferedTool[];
	stream?: boolean;
	[field: string]: unknown;
}

/** What one turn makes the model say: call tools, or give its final answer. */
export type Reply =
	{ toolCalls: Array<{ name: string; arguments: JsonObject }> } | { answer: string };

/** A turn of the script: a fixed reply, or one computed from the request (e.g. from the last tool result). */
export type Turn = (request: ChatRequest) => Reply;

export interface RecordedChat {
	/** Which turn answered (the count of assistant messages since the last user message). */
	turn: number;
	request: ChatRequest;
	/** 200, or 500 when the script had no such turn or the turn failed. */
	status: number;
	reply?: Reply;
	error?: string;
}

export interface ScriptedModel {
	/** The base n8n's openAiApi credential takes as its `url`, e.g. http://127.0.0.1:PORT/v1. */
	url: string;
	/** The model id it answers as. */
	modelId: string;
	/** Replaces the script; recorded requests are kept (see clear). */
	play(turns: Turn[]): void;
	/** Every chat request so far, oldest first. */
	chats(): RecordedChat[];
	clear(): void;
	close(): Promise<void>;
}

export const SCRIPTED_MODEL_ID = 'scripted';

/** A turn that calls one tool; `args` may be computed from the request, e.g. from an earlier tool's result. */
export function callTool(
	name: string,
	args: JsonObject | ((request: ChatRequest) => JsonObject),
): Turn {
	return (request) => ({
		toolCalls: [{ name, arguments: typeof args === 'function' ? args(request) : args }],
	});
}

/** The final answer; `text` may be computed from the request, e.g. quoting the last tool result. */
export function answer(text: string | ((request: ChatRequest) => string)): Turn {
	return (request) => ({ answer: typeof text === 'function' ? text(request) : text });
}

/** A message's text, whether sent as a string or as content parts. */
export function messageText(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content))
		return message.content.map((part) => part.text ?? '').join('');
	return '';
}

export interface ToolResult {
	/** The tool the result answers, from the assistant message that called it. */
	name: string | undefined;
	arguments: JsonObject | undefined;
	content: string;
}

/** The tool results a request carries back to the model, oldest first, each with the call it answers. */
export function toolResults(request: ChatRequest): ToolResult[] {
	const calls = new Map<string, ToolCall>();
	for (const message of request.messages)
		for (const call of message.tool_calls ?? []) calls.set(call.id, call);
	return request.messages
		.filter((message) => message.role === 'tool')
		.map((message) => {
			const call = message.tool_call_id === undefined ? undefined : calls.get(message.tool_call_id);
			return {
				name: call?.function.name,
				arguments: call ? parseArguments(call.function.arguments) : undefined,
				content: messageText(message),
			};
		});
}

/** The content of the last tool message in the request; throws when there is none. */
export function lastToolResult(request: ChatRequest): string {
	const results = toolResults(request);
	if (results.length === 0) throw new Error('the request carries no tool result');
	return results[results.length - 1].content;
}

/** The text of the last user message (the agent's prompt). */
export function lastUserText(request: ChatRequest): string {
	const users = request.messages.filter((message) => message.role === 'user');
	return users.length === 0 ? '' : messageText(users[users.length - 1]);
}

function parseArguments(text: string): JsonObject | undefined {
	try {
		const parsed = JSON.parse(text) as JsonValue;
		return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
			? parsed
			: undefined;
	} catch {
		return undefined;
	}
}

/** The assistant messages since the last user message: the turn a request asks for. */
export function turnOf(request: ChatRequest): number {
	let turn = 0;
	for (const message of request.messages) {
		if (message.role === 'user') turn = 0;
		else if (message.role === 'assistant') turn += 1;
	}
	return turn;
}

let completions = 0;

function completion(request: ChatRequest, turn: number, reply: Reply): JsonObject {
	completions += 1;
	const message: JsonObject =
		'answer' in reply
			? { role: 'assistant', content: reply.answer }
			: {
					role: 'assistant',
					content: null,
					tool_calls: reply.toolCalls.map((call, index) => ({
						id: `call_${turn + 1}_${index + 1}`,
						type: 'function',
						function: { name: call.name, arguments: JSON.stringify(call.arguments) },
					})),
				};
	return {
		id: `chatcmpl-scripted-${completions}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model,
		choices: [
			{
				index: 0,
				message,
				logprobs: null,
				finish_reason: 'answer' in reply ? 'stop' : 'tool_calls',
			},
		],
		usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
	};
}

/** `text` in pieces of a few characters, as a model streams tokens. */
function pieces(text: string, size = 8): string[] {
	const parts: string[] = [];
	for (let start = 0; start < text.length; start += size)
		parts.push(text.slice(start, start + size));
	return parts;
}

/**
 * The same completion as server-sent events, the way OpenAI streams it: a chunk per piece of the
 * answer, or per tool call (its id and name first, then its arguments in pieces), then a chunk with
 * the finish reason, the usage chunk when asked for (`stream_options.include_usage`), and [DONE].
 */
function streamCompletion(
	res: ServerResponse,
	request: ChatRequest,
	turn: number,
	reply: Reply,
): void {
	const { id, created, model, usage } = completion(request, turn, reply);
	const chunk = (choices: JsonValue[], extra: JsonObject = {}): string =>
		`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
	const delta = (fields: JsonObject, finishReason: string | null = null): JsonValue => ({
		index: 0,
		delta: fields,
		logprobs: null,
		finish_reason: finishReason,
	});
	const events: string[] = [];
	if ('answer' in reply) {
		events.push(chunk([delta({ role: 'assistant', content: '' })]));
		for (const piece of pieces(reply.answer)) events.push(chunk([delta({ content: piece })]));
	} else {
		events.push(chunk([delta({ role: 'assistant', content: null })]));
		reply.toolCalls.forEach((call, index) => {
			events.push(
				chunk([
					delta({
						tool_calls: [
							{
								index,
								id: `call_${turn + 1}_${index + 1}`,
								type: 'function',
								function: { name: call.name, arguments: '' },
							},
						],
					}),
				]),
			);
			for (const piece of pieces(JSON.stringify(call.arguments)))
				events.push(chunk([delta({ tool_calls: [{ index, function: { arguments: piece } }] })]));
		});
	}
	events.push(chunk([delta({}, 'answer' in reply ? 'stop' : 'tool_calls')]));
	const options = request.stream_options as { include_usage?: boolean } | undefined;
	if (options?.include_usage === true) events.push(chunk([], { usage }));
	events.push('data: [DONE]\n\n');
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	for (const event of events) res.write(event);
	res.end();
}

/** An OpenAI-style error body, so the client shows `message`. */
function failure(message: string, type: string): JsonObject {
	return { error: { message, type, param: null, code: type } };
}

/** Starts the scripted model on 127.0.0.1 (a free port unless `port` is given), with an empty script. */
export async function startScriptedModel(
	options: { port?: number; turns?: Turn[] } = {},
): Promise<ScriptedModel> {
	let turns: Turn[] = options.turns ?? [];
	let recorded: RecordedChat[] = [];

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
		if (req.method === 'GET' && path === '/v1/models') {
			sendJson(res, {
				status: 200,
				body: {
					object: 'list',
					data: [
						{ id: SCRIPTED_MODEL_ID, object: 'model', created: 0, owned_by: 'scripted-model' },
					],
				},
			});
			return;
		}
		if (req.method !== 'POST' || path !== '/v1/chat/completions') {
			sendJson(res, {
				status: 404,
				body: failure(
					`The scripted model answers POST /v1/chat/completions and GET /v1/models, not ${req.method ?? '?'} ${path}`,
					'not_found',
				),
			});
			return;
		}
		let request: ChatRequest;
		try {
			request = JSON.parse(await readBody(req)) as ChatRequest;
			if (!Array.isArray(request.messages)) throw new Error('messages is not an array');
		} catch (error) {
			// readBody rejects a body past the sandbox's cap with its 413; anything else is unreadable.
			sendJson(res, {
				status: error instanceof ApiError ? error.status : 400,
				body: failure(
					`The scripted model could not read the request: ${(error as Error).message}`,
					'invalid_request',
				),
			});
			return;
		}
		const turn = turnOf(request);
		const entry: RecordedChat = { turn, request, status: 200 };
		recorded.push(entry);
		const step = turns[turn];
		if (step === undefined) {
			entry.status = 500;
			entry.error = `The scripted model's script is exhausted: it has ${turns.length} turn(s) and this request asks for turn ${turn + 1}`;
			sendJson(res, { status: 500, body: failure(entry.error, 'script_exhausted') });
			return;
		}
		try {
			entry.reply = step(request);
		} catch (error) {
			entry.status = 500;
			entry.error = `The scripted model's turn ${turn + 1} failed: ${(error as Error).message}`;
			sendJson(res, { status: 500, body: failure(entry.error, 'script_failed') });
			return;
		}
		if (request.stream === true) streamCompletion(res, request, turn, entry.reply);
		else sendJson(res, { status: 200, body: completion(request, turn, entry.reply) });
	}

	const server = createServer((req, res) => {
		handle(req, res).catch((error: unknown) => {
			if (!res.headersSent)
				sendJson(res, {
					status: 500,
					body: failure(`The scripted model failed: ${(error as Error).message}`, 'server_error'),
				});
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', resolve);
	});
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		modelId: SCRIPTED_MODEL_ID,
		play(next) {
			turns = next;
		},
		chats: () => [...recorded],
		clear() {
			recorded = [];
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

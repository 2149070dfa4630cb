import { request } from '../../harness/http';
import type { ScriptedModel } from '../../harness/scripted-model';
import { answer, callTool, startScriptedModel } from '../../harness/scripted-model';
import { MAX_BODY_BYTES } from '../../sandbox/body';

interface OpenAiError {
	error: { message: string; type: string };
}

describe('harness/scripted-model', () => {
	let model: ScriptedModel;
	beforeAll(async () => {
		model = await startScriptedModel({ turns: [answer('done')] });
	});
	afterAll(async () => {
		await model.close();
	});

	it('answers 413 to a body past the sandbox cap, as the sandbox does, and plays no turn', async () => {
		const oversized = JSON.stringify({
			model: model.modelId,
			messages: [{ role: 'user', content: 'x'.repeat(MAX_BODY_BYTES) }],
		});
		const response = await request<OpenAiError>(`${model.url}/chat/completions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: oversized,
		});
		expect(response.status).toBe(413);
		expect(response.body.error.message).toContain(`larger than ${MAX_BODY_BYTES} bytes`);
		expect(model.chats()).toEqual([]);
	});

	it('still answers a body within the cap', async () => {
		const response = await request(`${model.url}/chat/completions`, {
			method: 'POST',
			body: { model: model.modelId, messages: [{ role: 'user', content: 'hello' }] },
		});
		expect(response.status).toBe(200);
		expect(model.chats().map((chat) => chat.status)).toEqual([200]);
	});
});

describe('harness/scripted-model, streaming (stream: true)', () => {
	interface Chunk {
		object: string;
		choices: Array<{
			delta: {
				content?: string | null;
				tool_calls?: Array<{
					index: number;
					id?: string;
					function: { name?: string; arguments: string };
				}>;
			};
			finish_reason: string | null;
		}>;
		usage?: unknown;
	}
	let model: ScriptedModel;
	beforeAll(async () => {
		model = await startScriptedModel();
	});
	afterAll(async () => {
		await model.close();
	});

	/** The events of a streamed answer: each `data:` line, [DONE] kept as text. */
	async function stream(messages: unknown[], extra: object = {}): Promise<Array<Chunk | string>> {
		const response = await request<string>(`${model.url}/chat/completions`, {
			method: 'POST',
			body: { model: model.modelId, messages, stream: true, ...extra },
		});
		expect(response.status).toBe(200);
		expect(response.headers['content-type']).toBe('text/event-stream');
		return String(response.body)
			.split('\n\n')
			.filter((event) => event.startsWith('data: '))
			.map((event) => event.slice('data: '.length))
			.map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as Chunk)));
	}

	it('streams a tool call as OpenAI does: id and name first, the arguments in pieces, then tool_calls and [DONE]', async () => {
		const args = { email: 'ada.lovelace@example.com', note: 'a longer argument value' };
		model.play([callTool('Find_Lead', args)]);
		const events = await stream([{ role: 'user', content: 'find ada' }]);
		expect(events.at(-1)).toBe('[DONE]');
		const chunks = events.filter((event): event is Chunk => typeof event !== 'string');
		const calls = chunks.flatMap((chunk) => chunk.choices[0].delta.tool_calls ?? []);
		expect(calls[0]).toMatchObject({ index: 0, id: 'call_1_1', function: { name: 'Find_Lead' } });
		expect(calls.length).toBeGreaterThan(2);
		expect(JSON.parse(calls.map((call) => call.function.arguments).join(''))).toEqual(args);
		expect(chunks.at(-1)?.choices[0].finish_reason).toBe('tool_calls');
	});

	it('streams an answer in pieces that join to the text, with the usage chunk when asked for', async () => {
		const text = 'The lead was handed to the assistant, who greets them now.';
		model.play([answer(text)]);
		const events = await stream([{ role: 'user', content: 'hello' }], {
			stream_options: { include_usage: true },
		});
		const chunks = events.filter((event): event is Chunk => typeof event !== 'string');
		const contents = chunks.flatMap((chunk) => chunk.choices[0]?.delta.content ?? []);
		expect(contents.length).toBeGreaterThan(3);
		expect(contents.join('')).toBe(text);
		expect(chunks.at(-2)?.choices[0].finish_reason).toBe('stop');
		expect(chunks.at(-1)).toMatchObject({ choices: [], usage: expect.any(Object) as unknown });
		expect(events.at(-1)).toBe('[DONE]');
	});
});

import { request } from '../../harness/http';
import type { ScriptedModel } from '../../harness/scripted-model';
import { answer, startScriptedModel } from '../../harness/scripted-model';
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

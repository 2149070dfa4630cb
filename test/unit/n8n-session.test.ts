/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sessionRequests } from '../../harness/n8n/session';

describe('harness/n8n/session', () => {
	it("sends a request again while n8n answers 503 'Database is not ready!', and not for another 503", async () => {
		let asked = 0;
		const server = createServer((req, res) => {
			asked++;
			res.setHeader('content-type', 'application/json');
			if (req.url === '/rest/busy') {
				res.statusCode = 503;
				res.end(JSON.stringify({ message: 'The trigger is receiving this event' }));
			} else if (asked <= 2) {
				// n8n's own answer while its database monitor's last ping failed.
				res.statusCode = 503;
				res.end(JSON.stringify({ code: 503, message: 'Database is not ready!' }));
			} else {
				res.end(JSON.stringify({ data: 'ok' }));
			}
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		const requests = sessionRequests({
			baseUrl: `http://127.0.0.1:${port}`,
			caPem: '',
			browserId: 'test',
			cookie: '',
			apiKey: '',
		});
		try {
			const answered = await requests.rest('GET', '/workflows');
			expect(answered).toMatchObject({ status: 200, body: { data: 'ok' } });
			expect(asked).toBe(3);
			const busy = await requests.rest('GET', '/busy');
			expect(busy.status).toBe(503);
			expect(asked).toBe(4);
		} finally {
			requests.close();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});

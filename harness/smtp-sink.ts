/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * A mailbox on loopback: a minimal SMTP server (plain, no authentication) that accepts every
 * message and keeps it. It stands in for the person who gets n8n's "send and wait" emails, e.g.
 * the approval links of the Email Send human-review tool.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { CredentialInput } from './n8n/api';

export interface ReceivedMail {
	from: string;
	to: string[];
	/** The message as sent, headers and body, with quoted-printable soft breaks and escapes undone. */
	text: string;
}

export interface SmtpSink {
	port: number;
	messages(): ReceivedMail[];
	close(): Promise<void>;
}

/** n8n's SMTP credential for a mailbox on loopback at `port`: plain, no login, no STARTTLS. */
export function mailboxCredential(port: number): CredentialInput {
	return {
		name: 'Reviewer mailbox',
		type: 'smtp',
		data: {
			user: '',
			password: '',
			host: '127.0.0.1',
			port,
			secure: false,
			disableStartTls: true,
		},
	};
}

/** Undoes quoted-printable encoding (soft line breaks and =XX escapes), as mail bodies carry HTML. */
export function decodeQuotedPrintable(text: string): string {
	const bytes = text
		.replace(/=\r?\n/g, '')
		.replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
	return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** One SMTP conversation: commands answered in order, the DATA section collected until its lone ".". */
function serve(socket: Socket, received: ReceivedMail[]): void {
	let buffer = '';
	let inData = false;
	let data: string[] = [];
	let mail: { from: string; to: string[] } = { from: '', to: [] };
	const reply = (line: string) => socket.write(`${line}\r\n`);
	reply('220 localhost mail sink');
	socket.setEncoding('latin1');
	socket.on('data', (chunk: string) => {
		buffer += chunk;
		let end: number;
		while ((end = buffer.indexOf('\r\n')) !== -1) {
			const line = buffer.slice(0, end);
			buffer = buffer.slice(end + 2);
			if (inData) {
				if (line !== '.') {
					data.push(line.startsWith('..') ? line.slice(1) : line);
					continue;
				}
				inData = false;
				received.push({ ...mail, text: decodeQuotedPrintable(data.join('\r\n')) });
				mail = { from: '', to: [] };
				data = [];
				reply('250 queued');
				continue;
			}
			const command = line.slice(0, 4).toUpperCase();
			if (command === 'EHLO' || command === 'HELO') reply('250 localhost');
			else if (command === 'MAIL') {
				mail.from = /<([^>]*)>/.exec(line)?.[1] ?? '';
				reply('250 sender ok');
			} else if (command === 'RCPT') {
				mail.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
				reply('250 recipient ok');
			} else if (command === 'DATA') {
				inData = true;
				reply('354 end with <CRLF>.<CRLF>');
			} else if (command === 'QUIT') {
				reply('221 bye');
				socket.end();
			} else if (command === 'RSET' || command === 'NOOP') reply('250 ok');
			else reply('502 not implemented');
		}
	});
	socket.on('error', () => socket.destroy());
}

export async function startSmtpSink(): Promise<SmtpSink> {
	const received: ReceivedMail[] = [];
	const sockets = new Set<Socket>();
	const server = createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		serve(socket, received);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		port: (server.address() as AddressInfo).port,
		messages: () => [...received],
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

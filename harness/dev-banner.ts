/**
 * The "Try first" steps of `npm run dev`'s banner. Several steps publish an example that reacts to
 * new leads, and a published workflow stays published: the banner names them, so that a person who
 * sees one lead start several executions knows why and how to stop them.
 */

/** The commands the steps show, built by scripts/dev.ts for the running sandbox and n8n. */
export interface TryFirstCommands {
	createLead: string;
	createConsentingLead: string;
	createHotLead: string;
	findAda: string;
	postForm: string;
	/** The local CA n8n's https certificate is signed with. */
	caCertPath: string;
}

/** The example workflows (their names) the steps publish, each reacting to every new lead from then on. */
export const PUBLISHED_ON_NEW_LEADS = {
	react: 'Svc: react to lead.created',
	pull: 'Svc: new leads, no public URL',
	agent: 'Svc: AI agent qualifies a new lead and hands it to the assistant',
	hotLead: 'Svc: hand a hot lead to the assistant',
} as const;

export function tryFirstSteps(commands: TryFirstCommands): string {
	const published = PUBLISHED_ON_NEW_LEADS;
	return `Try first:
  1. Open "Svc: dispatch approved campaigns" and click Execute workflow.
  2. Open "${published.react}" and click Execute workflow below the canvas. While n8n waits
     for the trigger's event, create a lead in the sandbox:
       ${commands.createLead}
     The signed lead.created delivery runs the workflow in the editor: "Get Lead" shows the new lead.
     (Execute step in the trigger's own panel runs the trigger alone.)
  3. Publish "${published.react}" (Publish, then give the version a name) and run the same
     command again: now every new lead starts one execution on its own (see Executions).
  4. Open "${published.pull}" and publish it: its Svc Pull Trigger asks the service for
     new events every minute, so the service never has to reach this n8n. Create a lead (the
     command in step 2): at the next poll it starts one execution (see Executions).
  5. Open "${published.agent}" and publish it. Create a
     lead with consent:
       ${commands.createConsentingLead}
     The agent looks the lead up with the "Find Lead" tool and hands it over with "Hand To Assistant";
     its answer says in plain words that the assistant took over. A lead without consent (the
     command in step 2) is left alone. The model is scripted (it plays these steps for any lead),
     so this runs offline.
  6. Call the MCP server above ("Svc: MCP server for leads") with the official MCP client:
       ${commands.findAda}
     It prints the lead Find_Lead found (without a tool name, the command lists the tools). In a
     client of your own (Streamable HTTP), send the header Authorization: Bearer <the token above>
     and trust the local CA (a Node.js client: NODE_EXTRA_CA_CERTS=${commands.caCertPath}).
  7. Open "${published.hotLead}" and publish it. Create a hot lead (score 90, consent
     granted):
       ${commands.createHotLead}
     Its execution hands the lead to the assistant (see Executions; greeting_sent says whether it greeted).
  8. Open "Svc: lead capture from a form" and publish it. Post the form:
       ${commands.postForm}
     The answer is the lead, consent granted; post it again and the consent keeps its first time.
  9. Add a Svc node to any workflow: every resource and operation works against the sandbox.

A published example stays published: after step 7, one new lead starts an execution in each of
${Object.values(published)
	.map((name) => `  "${name}"`)
	.join('\n')}
(each workflow's Executions tab lists its own). To stop one, choose Unpublish in its ⋯ menu on the
Overview page; to begin again from the demo state, press Ctrl-C and run npm run dev again: every
start is a fresh n8n and sandbox.`;
}

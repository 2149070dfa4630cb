/**
 * Where a workflow's executions run, as this process learns it: 'here' once one of them ran in
 * the process that started it (n8n's regular mode, where every execution does), 'elsewhere' once
 * the process started some and none ran here (queue mode: workers run them). Both triggers of a
 * workflow tell it: Svc Trigger's receipts and Svc Pull Trigger's runs.
 */
const places = new Map<string, 'here' | 'elsewhere'>();

export const executionPlace = {
	of: (scope: string): 'here' | 'elsewhere' | undefined => places.get(scope),
	/** An execution of the workflow ran in the process that started it. */
	ranHere(scope: string): void {
		places.set(scope, 'here');
	},
	/** The process started executions of the workflow and none ran here in time: unless one did before. */
	noneRanHere(scope: string): void {
		if (places.get(scope) !== 'here') places.set(scope, 'elsewhere');
	},
};

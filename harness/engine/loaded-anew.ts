/**
 * What `load` gives from a module registry of its own, as a restarted n8n loads a node: nothing of
 * this process's module state (a trigger's memory of its claims and position) comes along. Jest's
 * registry: for tests only.
 */
export async function loadedAnew<T>(load: () => Promise<T>): Promise<T> {
	let loaded: { value: T } | undefined;
	await jest.isolateModulesAsync(async () => {
		loaded = { value: await load() };
	});
	if (!loaded) throw new Error('nothing was loaded');
	return loaded.value;
}

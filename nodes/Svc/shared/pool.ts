/**
 * Runs `work(0..count-1)` with at most `concurrency` running at once. After the first failure no
 * new index starts; the ones already running finish, then that failure is thrown.
 */
export async function runBounded(
	count: number,
	concurrency: number,
	work: (index: number) => Promise<void>,
): Promise<void> {
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async (): Promise<void> => {
		while (failure === undefined && next < count) {
			const index = next++;
			try {
				await work(index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	const workers = Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker);
	await Promise.all(workers);
	if (failure !== undefined) throw failure.error;
}

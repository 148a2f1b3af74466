// The entry of a watcher thread (watch-delivery.ts): registers the TypeScript loader in the new
// thread (a worker does not inherit the main thread's) and runs watch-worker.ts.
import { register } from 'tsx/esm/api';

register();
await import('./watch-worker.ts');

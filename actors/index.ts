// Public surface of actors/ (the replicated state machine). Other folders import only this.
export type { KubeObject, ObjectMeta, ObjectKey, CollectionKey, JsonValue } from './object.ts';
export { keyString, collectionPrefix } from './object.ts';
export type { Command, CommandEnvelope, CreateCommand, UpdateCommand, DeleteCommand, NoopCommand, Preconditions } from './commands.ts';
export { encodeCommand, decodeCommand, commandVersion } from './commands.ts';
export type { CommandResult } from './results.ts';
export type { ChangeEvent, ChangeType } from './events.ts';

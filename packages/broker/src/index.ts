export { Broker, startBroker } from './server.js';
export type { BrokerOptions, BrokerLimits } from './config.js';
export { defaultLogFile } from './config.js';
export { AlreadyRunningError } from './transports/listen.js';
export * from './constants.js';

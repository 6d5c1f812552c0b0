export { RemotePortServer } from './remote-port-server';
export { RemoteInvocationPort, RemotePortRefused } from './remote-port-client';
export { RemoteAccessCodec } from './remote-access';

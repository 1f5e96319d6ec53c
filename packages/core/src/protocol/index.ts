export { runSdkProtocol, type SdkProtocolOptions } from './sdk-protocol.js';
export { ControlChannel, type ControlRequest, type ControlResponse } from './control-channel.js';

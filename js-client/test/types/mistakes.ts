// Misuses the declarations must reject: each line below is an error that tsc expects
// (a line that compiles fails the type check with "Unused '@ts-expect-error' directive").
import { BayeuxClient, AckExtension, type Configuration, type Status } from 'bayeux-client';
import { TimesyncExtension } from 'bayeux-client/extensions/timesync';
import { RecoveryExtension } from 'bayeux-client/extensions/recovery';

const client = new BayeuxClient();
// @ts-expect-error: the log level is one of a few names
const badLevel: Configuration = { logLevel: 'verbose' };
// @ts-expect-error: there is no such status
const badStatus: Status = 'open';
// @ts-expect-error: subscribe needs a callback
client.subscribe('/chat/room');
// @ts-expect-error: getClientId may be null
const id: string = client.getClientId();
// @ts-expect-error: the ack extension's options are named
new AckExtension(true);
// @ts-expect-error: the offset is a number
const offset: string = new TimesyncExtension().getTimeOffset();
// @ts-expect-error: onGap gets the channel and a reason, not a number
new RecoveryExtension({ onGap: (channel: string, reason: number) => {} });
// @ts-expect-error: a position's offset is a number
const badOffset: string = new RecoveryExtension().positions()['/chat/room'].offset;
// @ts-expect-error: no such module in the package
import('bayeux-client/extensions/nope');

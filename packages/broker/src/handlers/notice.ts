import { encodeFrame, type Push } from '@clippy/protocol';
import { findSession, type Handler } from './context.js';

/** Control characters would move the cursor or change modes in the user's terminal. */
const CONTROL_CHARACTERS = /\p{Cc}/gu;

/** Sends a one-line message to every terminal attached to the session; they show it. */
export const notice: Handler<'notice'> = (request, context) => {
  const session = findSession(context, request.session);
  const text = request.text.replace(CONTROL_CHARACTERS, ' ');
  const frame = encodeFrame({
    type: 'notice',
    id: 0,
    session: session.id,
    text,
  } satisfies Push<'notice'>);
  const clients = session.clients();
  for (const client of clients) client.send(frame);
  return { delivered: clients.length };
};

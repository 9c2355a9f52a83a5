import type { Handler } from './context.js';

/** The machines of config.json's `hosts` (other than this one) that the web view shows too. */
export const listHosts: Handler<'list_hosts'> = (_request, context) => ({
  hosts: context.daemon.web.hosts(),
});

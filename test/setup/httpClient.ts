/**
 * Setup of every test file: the tests' HTTP client (the global fetch) closes an idle kept-alive
 * connection after half a second, well before any server of the suite does (a Node server closes one
 * after its keep-alive timeout, 5 s by default).
 *
 * Most services under test run in the test's own process. fetch's default keeps an idle connection
 * for the server's announced timeout less one second, so on a busy box the client could reuse a
 * connection in the very turn the server's overdue timer closed it: `fetch failed`, ECONNRESET, with
 * no fault of the service.
 */
import { Agent, setGlobalDispatcher } from 'undici';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 500, keepAliveMaxTimeout: 500 }));

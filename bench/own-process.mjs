// Runs a floor server in a process of its own (forked by `inOwnProcess` in harness.mjs): the module named in argv
// is imported, its export is called with the JSON arguments, and the server's url goes back over IPC. A "close"
// message (or the parent going away) closes the server and ends the process.
const [modulePath, exportName, args] = process.argv.slice(2);
const server = await (await import(modulePath))[exportName](...JSON.parse(args));
let closing = null;
const close = () =>
  (closing ??= Promise.resolve(server.close()).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  ));
process.on('message', (m) => m === 'close' && close());
process.on('disconnect', close);
process.send({ url: server.url });

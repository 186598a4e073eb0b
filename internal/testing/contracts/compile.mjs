// Compiles src/*.sol with the pinned solcjs (package.json) and writes, for
// each contract, build/<Name>.abi.json (its ABI) and build/<Name>.bin (its
// creation bytecode, hex). The output directory may be given as the first
// argument (the freshness test compiles into a temporary one).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, 'build'));
const srcDir = path.join(here, 'src');

const sources = {};
for (const f of fs.readdirSync(srcDir).filter((f) => f.endsWith('.sol')).sort()) {
  sources[f] = { content: fs.readFileSync(path.join(srcDir, f), 'utf8') };
}
const input = {
  language: 'Solidity',
  sources,
  settings: {
    // The C-chain runs Shanghai's opcodes (PUSH0) and Cancun's; Shanghai
    // is enough for these contracts.
    evmVersion: 'shanghai',
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const result = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (result.errors ?? []).filter((e) => e.severity === 'error');
for (const e of result.errors ?? []) console.error(e.formattedMessage);
if (errors.length > 0) process.exit(1);

fs.mkdirSync(out, { recursive: true });
for (const file of Object.keys(result.contracts).sort()) {
  for (const [name, c] of Object.entries(result.contracts[file]).sort(([a], [b]) => a.localeCompare(b))) {
    if (c.evm.bytecode.object === '') continue; // an interface
    fs.writeFileSync(path.join(out, `${name}.abi.json`), JSON.stringify(c.abi, null, 2) + '\n');
    fs.writeFileSync(path.join(out, `${name}.bin`), c.evm.bytecode.object + '\n');
  }
}
console.log(`solc ${solc.version()}: ${Object.keys(sources).length} sources compiled into ${out}`);

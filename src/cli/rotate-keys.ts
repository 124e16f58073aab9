import '../require-node'; // first: refuses an unsupported Node before anything else loads
import { type Config, loadConfigOrExit } from '../config';
import { createLogger } from '../logger';
import { exitOnStartFailure, secretLiterals } from '../server';
import { createKeyRotation } from '../store/key-rotation';
import { migrate } from '../store/migrate';
import { openDatabase } from '../store/open';
import { createTokenCipher } from '../store/token-cipher';

/**
 * `npm run rotate-keys`: re-seals every stored token under the first key of HUB_ENCRYPTION_KEYS.
 * Rotation: put the new key first (keep the old ones after it), restart the Hub, run this, check that it
 * reports no rows left under old keys, then remove the old keys. Safe to run while the Hub serves traffic
 * (rows are re-sealed in short transactions, skipping rows another writer holds) and safe to run again.
 */
export async function rotateKeys(config: Config, print: (line: string) => void): Promise<boolean> {
  const logger = createLogger({ level: 'warn', secrets: secretLiterals(config) });
  const db = await openDatabase(config.database, logger);
  try {
    await migrate(db, logger);
    const keys = createKeyRotation(db, createTokenCipher(config.encryptionKeys));
    const current = config.encryptionKeys[0]!.id;
    const { reencrypted, failed } = await keys.reencryptAll();
    print(`re-encrypted ${reencrypted} credential row(s) under key "${current}"`);
    for (const f of failed) print(`  could not open row ${f.id}: ${f.reason}`);
    const remaining = (await keys.keyUsage()).filter((u) => u.keyId !== current);
    for (const u of remaining) print(`  ${u.rows} row(s) still sealed with key "${u.keyId}"`);
    if (remaining.length === 0) print('no rows use older keys; they can be removed from HUB_ENCRYPTION_KEYS');
    return failed.length === 0;
  } finally {
    await db.close();
  }
}

if (require.main === module) {
  rotateKeys(loadConfigOrExit(), (line) => process.stdout.write(`${line}\n`)).then(
    (clean) => process.exit(clean ? 0 : 2),
    exitOnStartFailure('rotation failed'),
  );
}

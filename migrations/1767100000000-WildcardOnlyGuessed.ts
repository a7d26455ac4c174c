import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A host is a wildcard echo only while guesses alone (brute force, permutations: sources 4 and 16) have found it.
 * The flag was set with the host's sources when its answer was recorded and kept until the next answer, even after
 * another source named the host; the store now clears it then (upsertSeenHosts), and this clears what was left, so
 * the feeds may look the flag up on guessed hosts only (hiddenConditions). Through host_intel_hidden_idx: the few
 * flagged hosts.
 */
export class WildcardOnlyGuessed1767100000000 implements MigrationInterface {
  name = 'WildcardOnlyGuessed1767100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE host_intel k SET wildcard = NULL FROM hosts h
                    WHERE h.id = k.host_id AND k.wildcard AND (h.sources | 20) <> 20`);
  }

  async down(): Promise<void> {
    // The flags cleared were stale: nothing to restore.
  }
}

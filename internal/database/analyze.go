package database

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
)

// PostgreSQL plans from table statistics that autovacuum refreshes at most
// once a minute (autovacuum_naptime), and only once a tenth of a table has
// changed. A store that grows from empty, an initial sync, outruns them: a
// table's statistics still count a few dozen rows when it holds thousands,
// and the planner then prefers scanning a whole chain's rows to the index a
// lookup by a list of keys needs. (Seen: the UTXO and metrics appliers'
// owner lookup of a batch's 256 spent UTXOs scanning every row of the
// chain, which made their batches 2 and 25 times slower.) So BulkInsert
// counts the rows it writes into each table, and once a table has received
// as many rows as its statistics counted, and at least analyzeMinRows, it
// analyzes the table. A table that doubles is analyzed once: a sync from
// empty analyzes each table a logarithmic number of times, and a large
// table rarely. The floor is low because small tables suffer too, and
// more so where autovacuum is off: with 2,200 rows in address_utxos never
// analyzed, the Data API's UTXO page looked up its 100 owners by a bitmap
// scan of the whole chain (14 ms a page, the PostgreSQL store at 0.3x
// SQLite under load), and in 0.5 ms once analyzed. (ANALYZE of such a
// table: 20-60 ms on a loaded 2-core machine.)
//
// A table's first statistics are taken in the transaction that inserted
// the rows, so that its own later statements plan with them. Later ones
// are taken after it commits, on another connection (analyzer), off the
// writer's path: an ANALYZE reads up to 30,000 of the table's pages and
// sorts a sample of every column, and in the EVM appliers' transactions
// the ANALYZEs were a sixth of BenchmarkIngestEVM's time on PostgreSQL
// (0.73 of 4.4 s for 256 blocks: 29 of them, 11 tables).
const analyzeMinRows = 1000

// growth is what BulkInsert knows of a table's statistics: the rows they
// counted when last seen or made, and the rows inserted since.
type growth struct{ counted, since int64 }

// noteInserted counts n rows inserted into table by db's transaction and
// analyzes the table when its statistics are behind (PostgreSQL only).
func (db *DB) noteInserted(ctx context.Context, table string, n int64) error {
	if db.dialect != Postgres || n <= 0 || db.tx == nil {
		return nil
	}
	sh := db.shared
	sh.growMu.Lock()
	g := sh.growth[table]
	sh.growMu.Unlock()
	if g == nil {
		// reltuples is -1 for a table never analyzed.
		var counted float64
		if err := db.tx.QueryRowContext(ctx, "SELECT reltuples FROM pg_class WHERE oid = $1::regclass", table).Scan(&counted); err != nil {
			return fmt.Errorf("database: statistics of %s: %w", table, err)
		}
		g = &growth{counted: max(0, int64(counted))}
	}
	sh.growMu.Lock()
	if sh.growth == nil {
		sh.growth = map[string]*growth{}
	}
	if old := sh.growth[table]; old != nil {
		g = old
	} else {
		sh.growth[table] = g
	}
	g.since += n
	due := g.since >= max(analyzeMinRows, g.counted)
	first := g.counted == 0
	if due {
		g.counted, g.since = g.counted+g.since, 0
	}
	sh.growMu.Unlock()
	switch {
	case !due:
		return nil
	case first || db.analyzeAfter == nil:
		// table passed identRE in BulkInsert.
		if _, err := db.tx.ExecContext(ctx, "ANALYZE "+table); err != nil {
			return fmt.Errorf("database: ANALYZE %s: %w", table, err)
		}
	default:
		*db.analyzeAfter = append(*db.analyzeAfter, table)
	}
	return nil
}

// analyzer analyzes, one at a time on a connection of the pool, the
// tables that committed transactions left due (noteInserted).
type analyzer struct {
	pool *sql.DB
	mu   sync.Mutex
	due  map[string]bool
	// queued counts the tables queued and not yet analyzed (tests wait
	// on it).
	queued sync.WaitGroup
	kick   chan struct{}
	done   chan struct{}
	stop   context.CancelFunc
}

func startAnalyzer(pool *sql.DB) *analyzer {
	ctx, stop := context.WithCancel(context.Background())
	a := &analyzer{pool: pool, due: map[string]bool{}, kick: make(chan struct{}, 1), done: make(chan struct{}), stop: stop}
	go a.run(ctx)
	return a
}

// queue adds tables to analyze; it never blocks.
func (a *analyzer) queue(tables []string) {
	a.mu.Lock()
	for _, t := range tables {
		if !a.due[t] {
			a.due[t] = true
			a.queued.Add(1)
		}
	}
	a.mu.Unlock()
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// next takes a due table off the queue; "" when none is.
func (a *analyzer) next() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	for t := range a.due {
		delete(a.due, t)
		return t
	}
	return ""
}

func (a *analyzer) run(ctx context.Context) {
	defer close(a.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.kick:
		}
		for t := a.next(); t != ""; t = a.next() {
			if _, err := a.pool.ExecContext(ctx, "ANALYZE "+t); err != nil && ctx.Err() == nil {
				slog.Warn("postgres: background ANALYZE", "table", t, "err", err)
			}
			a.queued.Done()
		}
	}
}

// close stops the analyzer and waits for it; tables still due are left
// to the next statistics.
func (a *analyzer) close() {
	a.stop()
	<-a.done
}

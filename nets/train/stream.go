package train

// Streaming training data: Config.ShuffleBuffer > 0 reads the training
// files from disk as training goes, holding only a shuffle buffer, a few
// open blocks and the validation positions in memory, so that the data may
// be any size.
//
// Before training, a scan reads every file once (in parallel over its
// blocks): it hashes the files, checks that each reads to its end, and
// counts the training positions of every block after the filter and the
// validation split, so that an epoch's size is known and the cosine
// schedule can be laid out. Each pass over the data then goes:
//
//  1. the blocks of all files (datasets.Blocks: a binpack's 1 MiB "BINP"
//     blocks, runs of bulletformat records, whole files of other formats)
//     in a random order drawn from (seed, pass);
//  2. streamInterleave of them open at once, each position taken from one
//     of them at random, the next block in the order opened when one ends
//     (chunk interleave across files, as bullet's and nnue-pytorch's
//     loaders read several chunks at once);
//  3. a shuffle buffer of ShuffleBuffer positions: each incoming position
//     replaces a random one of the buffer, which goes out. At the end of a
//     pass the buffer is shuffled and carried into the next pass, where
//     its positions go out first, one for each new position read (which
//     takes its slot): only the first pass waits for the buffer to fill.
//
// Every n positions of the stream are one pass's n training positions, each
// once, as with the in-memory permutation. One goroutine makes the stream,
// so it depends on the seed alone, not on the thread count; a resume
// replays the pass before the checkpoint's (what a pass leaves in the
// buffer depends on that pass alone) and its own up to the checkpoint,
// decoding only.
// A block that does not give the positions the scan counted (a file
// truncated, replaced or removed while training) stops the run with the
// file and the byte offset of the block.

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// StreamVersion names the order in which the stream gives a seed's
// positions. Change it with any change to that order (the block order, the
// interleave, the buffer): a streamed net depends on it, so cached nets of
// an older order must not be reused. Training keys hold it from version 2
// on (StreamKeyVersion), so the nets streamed under version 1 keep theirs.
const StreamVersion = 1

// StreamKeyVersion is what a training key holds of the stream's version: 0
// (nothing) for in-memory training or version 1, else the version.
func StreamKeyVersion(shuffleBuffer, version int) int {
	if shuffleBuffer <= 0 || version <= 1 {
		return 0
	}
	return version
}

const (
	// streamInterleave is how many blocks a pass reads at once.
	streamInterleave = 16
	// streamPacket is how many positions go from the stream's goroutine
	// to the trainer at once.
	streamPacket = 4096
	// streamPackets is how many packets may wait for the trainer.
	streamPackets = 8
	// streamValCap bounds the validation positions held out of streamed
	// data by board hash (no --val-data), as an equal share of every
	// block (so that the sample spans the files, and the scan's memory is
	// bounded while blocks are read in parallel): further held-out
	// positions are still kept out of training, but not evaluated.
	streamValCap = 1_000_000
)

// sortOf is what the data selection makes of a position.
type sortOf uint8

const (
	sortTrain    sortOf = iota
	sortFiltered        // dropped by the filter (or its one-in sample)
	sortExcluded        // in the validation files
	sortVal             // held out for validation by board hash
	sortBad             // too many pieces or no king: unusable
)

// selection decides, position by position, what LoadData decides for the
// whole data at once: the filter, the validation split, the one-in sample.
type selection struct {
	filter *datasets.Filter // nil: keep all
	sample datasets.Filter  // the one-in subsample (training side only)
	inVal  map[uint64]struct{}
	cut    uint64 // board-hash split when there are no validation files
	hashed bool   // split by hash (no validation files)
}

// sort places a position its reader has passed through s.filter
// (datasets.Options.Filter).
func (s *selection) sort(r *datasets.Record) sortOf {
	if n := r.PieceCount(); n > maxFeatures || r.King(0) > 63 || r.King(1) > 63 {
		return sortBad
	}
	if s.hashed {
		if r.BoardHash()>>32 < s.cut {
			return sortVal
		}
	} else if _, ok := s.inVal[r.BoardHash()]; ok {
		return sortExcluded
	}
	if s.sample.OneIn > 1 && !s.sample.Sampled(r) {
		return sortFiltered
	}
	return sortTrain
}

// streamBlock is one block of the training files and what the scan found
// in it.
type streamBlock struct {
	datasets.Block
	first int64 // positions (valid or not) before it in its file
	n     int64 // training positions in it
	file  int   // index into streamData.files
}

// streamFile is a training file as the scan found it.
type streamFile struct {
	path    string
	size    int64
	modTime time.Time
	lo, hi  int // its blocks: streamData.blocks[lo:hi]
}

// streamData is the training side of streamed data.
type streamData struct {
	files  []streamFile
	blocks []streamBlock
	n      int64 // training positions a pass
	sel    *selection
	skip   bool // Config.SkipBad
	// valShare is the most held-out validation positions a block keeps.
	valShare int
	// beforePass is Options.beforePass.
	beforePass func(pass int64)
	// cachedFiles counts the files whose scan came from Config.ScanCache;
	// cacheErr is the first error writing an entry there (the run goes on
	// without it).
	cachedFiles int
	cacheErr    error
}

// fileBlocks returns the range of sd.blocks that is file fi's.
func (sd *streamData) fileBlocks(fi int) (lo, hi int) {
	return sd.files[fi].lo, sd.files[fi].hi
}

// scanStream reads the training files once for streaming (see the package
// comment above) and returns the validation side in memory as Data.
func scanStream(cfg *Config, threads int) (*Data, *streamData, error) {
	if cfg.MaxPositions > 0 {
		return nil, nil, errors.New("--max-positions reads a prefix into memory; with a shuffle buffer, list fewer files or give a --positions budget")
	}
	if len(cfg.Data) == 0 {
		return nil, nil, errors.New("no training data given")
	}
	if !(cfg.ValFraction >= 0 && cfg.ValFraction < 1) {
		return nil, nil, fmt.Errorf("validation fraction %g out of range [0, 1)", cfg.ValFraction)
	}
	sel := &selection{}
	filter := cfg.Filter
	if filter != nil {
		if err := filter.Check(); err != nil {
			return nil, nil, err
		}
		rest := *filter
		sel.sample.OneIn, rest.OneIn = filter.OneIn, 0
		sel.filter = &rest
	}
	d := &Data{}
	sd := &streamData{sel: sel, skip: cfg.SkipBad}
	for _, f := range cfg.Data {
		st, err := os.Stat(f)
		if err != nil {
			return nil, nil, fmt.Errorf("data: %w", err)
		}
		if st.Size() == 0 {
			return nil, nil, fmt.Errorf("data %s: empty file (0 bytes)", f)
		}
		bs, err := datasets.Blocks(f)
		if err != nil {
			return nil, nil, fmt.Errorf("data: %w", err)
		}
		lo := len(sd.blocks)
		for _, b := range bs {
			sd.blocks = append(sd.blocks, streamBlock{Block: b, file: len(sd.files)})
		}
		sd.files = append(sd.files, streamFile{path: f, size: st.Size(), modTime: st.ModTime(), lo: lo, hi: len(sd.blocks)})
	}
	var valFiles []FileHash
	if len(cfg.ValData) > 0 {
		for _, f := range cfg.ValData {
			var sum string
			var err error
			if d.Val, sum, err = readRecords(f, d.Val, 0, cfg.SkipBad, &d.Skipped, sel.filter, &d.Filtered); err != nil {
				return nil, nil, err
			}
			valFiles = append(valFiles, FileHash{f, sum})
		}
		sel.inVal = make(map[uint64]struct{}, len(d.Val))
		for i := range d.Val {
			sel.inVal[d.Val[i].BoardHash()] = struct{}{}
		}
	} else {
		sel.hashed, sel.cut = true, uint64(cfg.ValFraction*(1<<32))
	}
	// Files the cache knows are not read; the others are hashed here and
	// scanned below.
	var key string
	if cfg.ScanCache != "" {
		var err error
		if key, err = sd.selectionKey(valFiles); err != nil {
			return nil, nil, err
		}
	}
	res := make([]blockScan, len(sd.blocks))
	known := make([]bool, len(sd.blocks))
	cached := make([]bool, len(sd.files))
	for fi := range sd.files {
		f := &sd.files[fi]
		lo, hi := sd.fileBlocks(fi)
		if key != "" {
			if e := loadScanEntry(cfg.ScanCache, key, f, sd.blocks[lo:hi]); e != nil {
				for i, c := range e.Blocks {
					res[lo+i] = blockScan{entries: c.Entries, train: c.Train, filtered: c.Filtered, excl: c.Excluded, skipped: c.Skipped, bad: c.Bad}
					known[lo+i] = true
				}
				d.Files = append(d.Files, FileHash{f.path, e.SHA256})
				cached[fi] = true
				sd.cachedFiles++
				continue
			}
		}
		sum, _, err := fsutil.FileSHA256(f.path)
		if err != nil {
			return nil, nil, fmt.Errorf("data: %w", err)
		}
		d.Files = append(d.Files, FileHash{f.path, sum})
	}
	d.Files = append(d.Files, valFiles...)
	if err := sd.scan(d, threads, res, known); err != nil {
		return nil, nil, err
	}
	if key != "" {
		for fi := range sd.files {
			if cached[fi] {
				continue
			}
			lo, hi := sd.fileBlocks(fi)
			e := &scanEntry{SHA256: d.Files[fi].SHA256}
			for i := lo; i < hi; i++ {
				r := &res[i]
				e.Blocks = append(e.Blocks, scanCounts{Offset: sd.blocks[i].Offset, Size: sd.blocks[i].Size, Entries: r.entries,
					Train: r.train, Filtered: r.filtered, Excluded: r.excl, Skipped: r.skipped, Bad: r.bad})
			}
			if err := saveScanEntry(cfg.ScanCache, key, &sd.files[fi], e); err != nil && sd.cacheErr == nil {
				sd.cacheErr = err
			}
		}
	}
	d.SHA256 = dataSHA256(d.Files)
	d.Streamed = sd.n
	return d, sd, nil
}

// blockScan is what the scan found in one block.
type blockScan struct {
	entries, train      int64
	filtered, excl, bad int64
	skipped             int64
	val                 []datasets.Record
	err                 error
}

// scan reads every block not known (from the scan cache) once, on threads
// goroutines, into res, and fills in the blocks' counts and d's.
func (sd *streamData) scan(d *Data, threads int, res []blockScan, known []bool) error {
	// Blocks go in parallel, each read as if it were its file's first; the
	// positions before each are known once all are read, and a block that
	// failed is read again knowing them, so that its error names the
	// position by its number in the file.
	sd.valShare = max(1, streamValCap/len(sd.blocks))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(threads, len(sd.blocks))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res[i] = sd.scanBlock(&sd.blocks[i])
			}
		}()
	}
	for i := range sd.blocks {
		if !known[i] {
			jobs <- i
		}
	}
	close(jobs)
	wg.Wait()
	entries := make([]int64, len(sd.files))
	for i := range sd.blocks {
		b, r := &sd.blocks[i], &res[i]
		b.first = entries[b.file]
		if r.err != nil {
			if again := sd.scanBlock(b); again.err != nil {
				r = &again
			}
			return fmt.Errorf("data: %w", r.err)
		}
		entries[b.file] += r.entries
	}
	for f, file := range sd.files {
		if entries[f] == 0 {
			return fmt.Errorf("data %s: no positions in the file", file.path)
		}
	}
	for i := range res {
		r := &res[i]
		sd.blocks[i].n = r.train
		sd.n += r.train
		d.Filtered += r.filtered
		d.Excluded += r.excl
		d.Skipped += r.skipped + r.bad
		d.Val = append(d.Val, r.val...)
	}
	if sd.n == 0 {
		return errors.New("data: no training positions")
	}
	return nil
}

func (sd *streamData) scanBlock(b *streamBlock) (res blockScan) {
	r, err := datasets.OpenBlock(b.Block, b.first, sd.readOptions())
	if err != nil {
		res.err = fmt.Errorf("%s: block at byte %d: %w", b.Path, b.Offset, err)
		return res
	}
	scan := datasets.ScanReader(r)
	for rec, err := range scan.All() {
		if err != nil {
			res.err = err
			return res
		}
		res.entries++
		switch sd.sel.sort(&rec) {
		case sortTrain:
			res.train++
		case sortFiltered:
			res.filtered++
		case sortExcluded:
			res.excl++
		case sortVal:
			if len(res.val) < sd.valShare {
				res.val = append(res.val, rec)
			}
		case sortBad:
			if !sd.skip {
				res.err = fmt.Errorf("%s: record %d (%s) has %d pieces or a missing king", b.Path, b.first+res.entries, rec.Text(), rec.PieceCount())
				return res
			}
			res.bad++
		}
	}
	res.skipped = scan.Skipped()
	res.filtered += scan.Dropped()
	res.entries += res.skipped + scan.Dropped()
	return res
}

// readOptions are how blocks are read: the filter applied by the reader.
func (sd *streamData) readOptions() datasets.Options {
	return datasets.Options{SkipBad: sd.skip, Filter: sd.sel.filter}
}

// blockReader gives the training positions of one block.
type blockReader struct {
	b   *streamBlock
	r   datasets.Reader
	sel *selection
	got int64
}

func (sd *streamData) open(b *streamBlock) (*blockReader, error) {
	f := &sd.files[b.file]
	st, err := os.Stat(f.path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if st.Size() != f.size || !st.ModTime().Equal(f.modTime) {
		return nil, fmt.Errorf("data %s: the file changed since training started (%d bytes, modified %s; then %d bytes, modified %s)",
			f.path, st.Size(), st.ModTime().Format(time.RFC3339Nano), f.size, f.modTime.Format(time.RFC3339Nano))
	}
	r, err := datasets.OpenBlock(b.Block, b.first, sd.readOptions())
	if err != nil {
		return nil, fmt.Errorf("data %s: block at byte %d: %w", b.Path, b.Offset, err)
	}
	return &blockReader{b: b, r: r, sel: sd.sel}, nil
}

// next returns the block's next training position; ok is false at its end.
func (br *blockReader) next() (rec datasets.Record, ok bool, err error) {
	for {
		rec, err = br.r.Next()
		if errors.Is(err, io.EOF) {
			if br.got != br.b.n {
				return rec, false, fmt.Errorf("data %s: the block at byte %d gave %d training positions, %d when training started: the file changed", br.b.Path, br.b.Offset, br.got, br.b.n)
			}
			return rec, false, nil
		}
		if err != nil {
			return rec, false, fmt.Errorf("data: %w", err)
		}
		if br.sel.sort(&rec) == sortTrain {
			br.got++
			if br.got > br.b.n {
				return rec, false, fmt.Errorf("data %s: the block at byte %d gives more than the %d training positions it had when training started: the file changed", br.b.Path, br.b.Offset, br.b.n)
			}
			return rec, true, nil
		}
	}
}

// packet is positions (or an error) on their way to the trainer.
type packet struct {
	recs []datasets.Record
	err  error
}

// streamSource makes the training stream on its own goroutine and hands
// it out a batch at a time.
type streamSource struct {
	ch    chan packet
	free  chan []datasets.Record
	stop  chan struct{}
	once  sync.Once
	k     int64 // stream position of the next batch
	cur   packet
	at    int
	batch []datasets.Record
	ptrs  []*datasets.Record
	err   error
}

// newStreamSource starts the stream at position k (a pass of sd.n
// positions after another; the first k are made and dropped).
func newStreamSource(sd *streamData, seed uint64, buffer, batch int, k int64) *streamSource {
	s := &streamSource{ch: make(chan packet, streamPackets), free: make(chan []datasets.Record, streamPackets+2),
		stop: make(chan struct{}), k: k, batch: make([]datasets.Record, batch), ptrs: make([]*datasets.Record, batch)}
	for range streamPackets + 2 {
		s.free <- make([]datasets.Record, 0, streamPacket)
	}
	p := &producer{sd: sd, seed: seed, buffer: buffer, out: s}
	go p.run(k)
	return s
}

// wait blocks until the stream's first positions are ready (its buffer has
// filled: the streamed path's load, which a throughput measurement leaves
// out as it leaves out reading the data into memory).
func (s *streamSource) wait() error {
	if s.cur.recs != nil || s.err != nil {
		return s.err
	}
	return s.recv()
}

// recv takes the next packet off the stream (or its error).
func (s *streamSource) recv() error {
	p, ok := <-s.ch
	if !ok || p.err != nil {
		s.err = p.err
		if s.err == nil {
			s.err = errors.New("internal error: the training stream ended")
		}
		return s.err
	}
	s.cur, s.at = p, 0
	return nil
}

// next returns the stream's positions k .. k+n-1, valid until the next
// call; k must follow on from the previous call.
func (s *streamSource) next(k int64, n int) ([]*datasets.Record, error) {
	if s.err != nil {
		return nil, s.err
	}
	if k != s.k {
		return nil, fmt.Errorf("internal error: stream asked for position %d, at %d", k, s.k)
	}
	for i := 0; i < n; {
		if s.at == len(s.cur.recs) {
			if s.cur.recs != nil {
				s.free <- s.cur.recs[:0]
			}
			if err := s.recv(); err != nil {
				return nil, err
			}
		}
		c := copy(s.batch[i:n], s.cur.recs[s.at:])
		s.at += c
		i += c
	}
	for i := range n {
		s.ptrs[i] = &s.batch[i]
	}
	s.k += int64(n)
	return s.ptrs[:n], nil
}

func (s *streamSource) close() {
	s.once.Do(func() {
		close(s.stop)
		for range s.ch { // let the goroutine see stop and end
		}
	})
}

// producer makes the training stream.
type producer struct {
	sd     *streamData
	seed   uint64
	buffer int
	out    *streamSource
	pkt    []datasets.Record
	drop   int64 // positions still to make and drop (a resume)
	silent bool  // make a pass without sending anything (a resume)

	// buf is the shuffle buffer; at the start of a pass after the first,
	// buf[:carry] holds the previous pass's last positions in random
	// order, still to go out.
	buf   []datasets.Record
	carry int
}

func (p *producer) run(k int64) {
	background()
	defer close(p.out.ch)
	p.buf = make([]datasets.Record, min(int64(p.buffer), p.sd.n))
	// Pass 0 sends the stream's positions [0, n - B), pass q > 0 the B it
	// carries in and then [q n, (q+1) n - B): every n positions of the
	// stream from 0 are one pass's positions, as epochs need.
	b := int64(len(p.buf))
	pass := (k + b) / p.sd.n
	p.drop = k
	if pass > 0 {
		p.drop = k - (pass*p.sd.n - b)
	}
	fail := func(err error) {
		select {
		case p.out.ch <- packet{err: err}:
		case <-p.out.stop:
		}
	}
	if pass > 0 {
		// Which positions the buffer holds when a pass ends depends on
		// that pass alone, not on what it carried in: replay the pass
		// before the resumed one, sending nothing, to rebuild them.
		p.silent, p.carry = true, len(p.buf)
		if pass == 1 {
			p.carry = 0
		}
		if err := p.pass(pass - 1); err != nil {
			fail(err)
			return
		}
		p.silent = false
	}
	for ; ; pass++ {
		if err := p.pass(pass); err != nil {
			fail(err)
			return
		}
		if p.stopped() {
			return
		}
	}
}

func (p *producer) stopped() bool {
	select {
	case <-p.out.stop:
		return true
	default:
		return false
	}
}

// emit sends one position down the stream; false when the trainer is gone.
func (p *producer) emit(r *datasets.Record) bool {
	if p.silent {
		return true
	}
	if p.drop > 0 {
		p.drop--
		return true
	}
	if p.pkt == nil {
		select {
		case p.pkt = <-p.out.free:
		case <-p.out.stop:
			return false
		}
	}
	p.pkt = append(p.pkt, *r)
	if len(p.pkt) == cap(p.pkt) {
		select {
		case p.out.ch <- packet{recs: p.pkt}:
			p.pkt = nil
		case <-p.out.stop:
			return false
		}
	}
	return true
}

// pass makes one pass over the data: the previous pass's last positions
// (p.buf[:p.carry]) go out first, one for each new position read, which
// takes its slot, so that a pass never waits for its buffer to fill
// (only the first does); then each new position replaces a random one of
// the buffer, which goes out. At the end the buffer, now all this pass's,
// is shuffled and carried into the next pass.
func (p *producer) pass(pass int64) error {
	if p.sd.beforePass != nil && !p.silent {
		p.sd.beforePass(pass)
	}
	rng := rand.New(rand.NewPCG(p.seed, uint64(pass)^0x57a3e4d))
	order := rng.Perm(len(p.sd.blocks))
	var open []*blockReader
	defer func() {
		for _, br := range open {
			br.r.Close()
		}
	}()
	next := 0
	refill := func() error {
		for len(open) < streamInterleave && next < len(order) {
			br, err := p.sd.open(&p.sd.blocks[order[next]])
			if err != nil {
				return err
			}
			next++
			open = append(open, br)
		}
		return nil
	}
	if err := refill(); err != nil {
		return err
	}
	buf := p.buf
	var made int64
	filled := 0 // first pass: the buffer's slots in use
	if p.carry > 0 || pass > 0 {
		filled = len(buf)
	}
	for len(open) > 0 {
		i := rng.IntN(len(open))
		rec, ok, err := open[i].next()
		if err != nil {
			return err
		}
		if !ok {
			open[i].r.Close()
			open[i] = open[len(open)-1]
			open = open[:len(open)-1]
			if err := refill(); err != nil {
				return err
			}
			continue
		}
		made++
		var slot int
		switch {
		case p.carry > 0:
			p.carry--
			slot = p.carry
		case filled < len(buf):
			buf[filled] = rec
			filled++
			continue
		default:
			slot = rng.IntN(len(buf))
		}
		if !p.emit(&buf[slot]) {
			return nil
		}
		buf[slot] = rec
	}
	if made != p.sd.n {
		return fmt.Errorf("data: a pass gave %d training positions, %d when training started: a file changed", made, p.sd.n)
	}
	rng.Shuffle(len(buf), func(i, j int) { buf[i], buf[j] = buf[j], buf[i] })
	p.carry = len(buf)
	return nil
}

// defaultThreads is the scan's parallelism for Threads = 0.
func defaultThreads(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

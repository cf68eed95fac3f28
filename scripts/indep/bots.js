#!/usr/bin/env node
// bots.js - the independent load client of scripts/indep.sh: N bots of the npm
// package teeworlds (a DDNet/0.6 client library we did not write; the protocol
// work is all the library's) against one server on 127.0.0.0/8.
//
// Bot i joins at i*rampup/N; bots 0..P-1 play (a seeded input pattern that
// walks, jumps, hooks, aims and fires, set on the library's movement input,
// which the library sends every 50 ms, or with --input-hz H, H times a
// second through its sendInput), the rest go to the spectators
// (client.game.SetTeam(-1)). After rampup+settle the measuring window of
// `duration` seconds starts; at its end every bot disconnects and one JSON
// summary goes to stdout (or --json FILE): per bot its join, in-game and
// window figures (the library's "snapshot" events per second, snapshots whose
// CRC did not match or whose delta base was missing, characters per snapshot,
// its own team as the snapshots show it, datagrams each way and bytes
// received, disconnect reasons; means over the bots in the summary) and
// this process's own CPU over the window (process.cpuUsage).
//
// Usage: node bots.js --port PORT [--host 127.0.0.1] [--n 63] [--play 16]
//          [--rampup 10] [--settle 2] [--duration 60] [--seed 1]
//          [--sources 16] [--source-base 127.0.0.2] [--input-hz H] [--json FILE]
//          [--first F --of T]
// --first F --of T: this process runs bots F..F+n-1 of a game of T bots
// (their ids, seeds, names, source addresses, join times and whether they
// play are those bots' in the game of T), so one game's bots can be split
// over several processes: node runs a process's bots on one thread.
// Refuses any host outside 127.0.0.0/8 (no name look-ups) and refuses to run
// where a network interface other than lo exists (run it inside
// `unshare --net`, as scripts/indep.sh does): the library can fetch a map URL
// a server names. Exits 0 when every bot was in game for the whole window
// with no CRC error and no disconnect, 1 otherwise, 2 on usage errors.
"use strict";
const dgram = require("dgram");
const fs = require("fs");
const os = require("os");
const tw = require("teeworlds");

// MaxBots bounds --n (a server has at most 64 slots).
const MaxBots = 64;
// MaxSeconds bounds --rampup + --settle + --duration.
const MaxSeconds = 900;

function usage(msg) {
	process.stderr.write(`bots.js: ${msg}\n`);
	process.exit(2);
}

const opts = { host: "127.0.0.1", port: 0, n: 63, play: 16, rampup: 10, settle: 2, duration: 60, seed: 1, sources: 16, "source-base": "127.0.0.2", "input-hz": 0, json: "-", first: 0, of: 0 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
	const k = argv[i].replace(/^--?/, "");
	if (!(k in opts) || i + 1 >= argv.length) usage(`unknown or incomplete flag ${argv[i]}`);
	opts[k] = typeof opts[k] === "number" ? Number(argv[i + 1]) : argv[i + 1];
}
// loopback returns the octets of a dotted IPv4 address in 127.0.0.0/8, or null.
function loopback(a) {
	const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(a);
	return m && m.slice(1).every((x) => Number(x) <= 255) ? [127, ...m.slice(1).map(Number)] : null;
}
if (!loopback(opts.host)) usage(`host ${opts.host}: only 127.0.0.0/8 addresses (no names)`);
const base = loopback(opts["source-base"]);
if (!base) usage(`source-base ${opts["source-base"]}: only 127.0.0.0/8`);
if (!(opts.port > 0 && opts.port < 65536)) usage("--port 1..65535 is required");
if (opts.of === 0) opts.of = opts.n;
if (!(opts.of >= 1 && opts.of <= MaxBots) || !(opts.first >= 0 && opts.n >= 1 && opts.first + opts.n <= opts.of) || !(opts.play >= 0 && opts.play <= opts.of))
	usage(`--of 1..${MaxBots} (default --n), 1 <= --n, --first >= 0, first+n <= of, --play 0..of`);
if (!(opts["input-hz"] >= 0 && opts["input-hz"] <= 50)) usage("--input-hz 0..50");
if (!(opts.sources >= 1 && opts.sources <= 64 && base[3] + opts.sources - 1 <= 255)) usage("--sources 1..64 within the source-base's /24");
if (!(opts.rampup >= 0 && opts.settle >= 0 && opts.duration > 0 && opts.rampup + opts.settle + opts.duration <= MaxSeconds))
	usage(`--rampup, --settle >= 0, --duration > 0, together at most ${MaxSeconds} s`);
const others = Object.keys(os.networkInterfaces()).filter((name) => name !== "lo");
if (others.length) usage(`refusing to run outside a private network namespace with only lo (found ${others.join(", ")}; see scripts/indep.sh)`);

// rng is mulberry32: a small seeded generator, so that runs repeat.
function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

// Outcome of each snapshot the library unpacks: it returns the tick it will
// acknowledge, which is the snapshot's own tick when the CRC matched, the
// delta tick on a CRC mismatch and -1 when the delta base was missing.
let current = null; // the bot whose snapshot is being unpacked
const unpack = tw.Snapshot.prototype.unpackSnapshot;
tw.Snapshot.prototype.unpackSnapshot = function (snap, deltaTick, recvTick, crc) {
	const out = unpack.call(this, snap, deltaTick, recvTick, crc);
	if (current && current.measuring) {
		if (out.recvTick === -1) current.w.missingBase++;
		else if (out.recvTick !== recvTick) current.w.crcErrors++;
	}
	return out;
};

const t0 = Date.now();
const now = () => (Date.now() - t0) / 1000;
const winStart = opts.rampup + opts.settle;
const bots = [];
const errors = [];
process.on("uncaughtException", (e) => errors.push({ t: now(), error: String(e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : e) }));

function startBot(i) {
	const b = { id: i, play: i < opts.play, joinedAt: null, inGameAt: null, leftAt: null, disconnects: [], measuring: false, inGame: false,
		team: null, w: { snapshots: 0, tees: 0, rxPk: 0, rxB: 0, txPk: 0, crcErrors: 0, missingBase: 0, inGameWhole: false } };
	bots.push(b);
	// --input-hz H: the library's "lightweight" mode (no input timer of its
	// own) and its sendInput called H times a second instead.
	const c = new tw.Client(opts.host, opts.port, `indep${i}`, { timeout: 10000, lightweight: opts["input-hz"] > 0 });
	if (opts["input-hz"] > 0) {
		b.inputTimer = setInterval(() => {
			c.time = Date.now(); // as the library's own input timer does: no keep-alive or empty flush while inputs go out
			c.sendInput();
		}, 1000 / opts["input-hz"]);
	}
	b.client = c;
	// One source address per group of bots (like twload -sources): the
	// library binds its socket to any address; bind it to ours instead.
	c.socket.close();
	c.socket = dgram.createSocket("udp4");
	c.socket.bind({ address: `127.${base[1]}.${base[2]}.${base[3] + (i % opts.sources)}` });
	const r = rng(opts.seed + i);
	c.on("connected", () => {
		b.inGame = true;
		if (b.inGameAt === null) b.inGameAt = now() - b.joinedAt;
		if (!b.play) c.game.SetTeam(-1);
	});
	c.on("snapshot", (items) => {
		if (!b.measuring) return;
		b.w.snapshots++;
		for (const it of items) {
			if (it.type_id === 9) b.w.tees++;
			else if (it.type_id === 10 && it.parsed.local === 1) b.team = it.parsed.team;
		}
	});
	c.on("disconnect", (reason) => {
		if (!b.inGame && b.disconnects.length && b.disconnects[b.disconnects.length - 1].reason === reason) return; // the library repeats its time-out every 5 s
		b.inGame = false;
		b.disconnects.push({ t: now(), reason: String(reason) });
	});
	// Wrap the socket's message handling so the snapshot outcome hook knows
	// whose snapshot it is (node runs one handler at a time), and count the
	// datagrams both ways in the window.
	const on = c.socket.on.bind(c.socket);
	c.socket.on = (ev, fn) => on(ev, ev === "message" ? (msg, ...a) => {
		if (b.measuring) { b.w.rxPk++; b.w.rxB += msg.length; }
		current = b;
		try { fn(msg, ...a); } finally { current = null; }
	} : fn);
	const send = c.socket.send.bind(c.socket);
	c.socket.send = (msg, ...a) => {
		if (b.measuring) b.w.txPk++;
		return send(msg, ...a);
	};
	b.joinedAt = now();
	c.connect();
	if (b.play) {
		// twload's "random" pattern, on a 100 ms step: direction, jump, hook,
		// fire (press and release), aim and weapon change at random.
		let step = 0;
		b.timer = setInterval(() => {
			const m = c.movement.input;
			step++;
			if (step % 2 === 0) {
				m.m_Direction = Math.floor(r() * 3) - 1;
				m.m_Jump = r() < 1 / 8 ? 1 : 0;
				m.m_Hook = r() < 1 / 6 ? 1 : 0;
				const a = r() * 2 * Math.PI;
				m.m_TargetX = Math.round(200 * Math.cos(a));
				m.m_TargetY = Math.round(200 * Math.sin(a));
				if (r() < 1 / 20) m.m_WantedWeapon = 1 + Math.floor(r() * 5);
			}
			if (r() < 1 / 2) m.m_Fire = (m.m_Fire + 1) & 0x3f;
		}, 100);
	}
}

for (let i = opts.first; i < opts.first + opts.n; i++) setTimeout(() => startBot(i), (opts.rampup * 1000 * i) / opts.of);

let cpu0 = null;
setTimeout(() => {
	for (const b of bots) {
		b.measuring = true;
		b.w.inGameWhole = b.inGame;
	}
	cpu0 = process.cpuUsage();
}, winStart * 1000);

setTimeout(() => {
	const cpu = process.cpuUsage(cpu0);
	for (const b of bots) {
		b.measuring = false;
		if (!b.inGame) b.w.inGameWhole = false;
		clearInterval(b.timer);
		clearInterval(b.inputTimer);
	}
	const per = bots.map((b) => ({
		id: b.id,
		play: b.play,
		joined_s: +b.joinedAt.toFixed(3),
		in_game_after_s: b.inGameAt === null ? null : +b.inGameAt.toFixed(3),
		in_game_whole_window: b.w.inGameWhole,
		team: b.team,
		snapshots_per_s: +(b.w.snapshots / opts.duration).toFixed(3),
		tees_per_snapshot: b.w.snapshots ? +(b.w.tees / b.w.snapshots).toFixed(2) : 0,
		rx_packets_per_s: +(b.w.rxPk / opts.duration).toFixed(2),
		rx_bytes_per_s: Math.round(b.w.rxB / opts.duration),
		tx_packets_per_s: +(b.w.txPk / opts.duration).toFixed(2),
		crc_errors: b.w.crcErrors,
		missing_base: b.w.missingBase,
		disconnects: b.disconnects,
	}));
	const rates = per.map((p) => p.snapshots_per_s).sort((a, b) => a - b);
	const sum = {
		library: `teeworlds@${require("teeworlds/package.json").version}`,
		host: opts.host, port: opts.port, n: opts.n, play: opts.play,
		rampup_s: opts.rampup, settle_s: opts.settle, window_s: opts.duration,
		in_game_whole_window: per.filter((p) => p.in_game_whole_window).length,
		in_game_at_end: bots.filter((b) => b.inGame).length,
		first: opts.first, of: opts.of,
		players: per.filter((p) => p.team !== null && p.team >= 0).length,
		spectators: per.filter((p) => p.team === -1).length,
		snapshots_per_s: { min: rates[0], median: rates[rates.length >> 1], max: rates[rates.length - 1] },
		tees_per_snapshot: +(per.reduce((s, p) => s + p.tees_per_snapshot, 0) / per.length).toFixed(2),
		rx_packets_per_s: +(per.reduce((s, p) => s + p.rx_packets_per_s, 0) / per.length).toFixed(2),
		rx_bytes_per_s: Math.round(per.reduce((s, p) => s + p.rx_bytes_per_s, 0) / per.length),
		tx_packets_per_s: +(per.reduce((s, p) => s + p.tx_packets_per_s, 0) / per.length).toFixed(2),
		crc_errors: per.reduce((s, p) => s + p.crc_errors, 0),
		missing_base: per.reduce((s, p) => s + p.missing_base, 0),
		disconnects: per.reduce((s, p) => s + p.disconnects.length, 0),
		errors,
		cpu_pct: +(((cpu.user + cpu.system) / 1e4 / opts.duration)).toFixed(1),
		bots: per,
	};
	const text = JSON.stringify(sum, null, 1) + "\n";
	if (opts.json === "-") process.stdout.write(text);
	else fs.writeFileSync(opts.json, text);
	const ok = sum.in_game_whole_window === opts.n && sum.crc_errors === 0 && sum.disconnects === 0 && errors.length === 0;
	// Leave politely (the library sends its close), then exit whatever happens.
	Promise.race([Promise.allSettled(bots.filter((b) => b.client.State !== 0).map((b) => b.client.Disconnect())), new Promise((r) => setTimeout(r, 2500))])
		.then(() => process.exit(ok ? 0 : 1));
}, (winStart + opts.duration) * 1000);

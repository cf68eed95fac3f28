package world

import (
	"errors"
)

// Teeworlds 0.7.5 snapshot object and event type ids (NETOBJTYPE_* and
// NETEVENTTYPE_*, world spec 5.1). Objects and events share one numbering.
const (
	ObjPlayerInput    = 1  // NETOBJTYPE_PLAYERINPUT
	ObjProjectile     = 2  // NETOBJTYPE_PROJECTILE
	ObjLaser          = 3  // NETOBJTYPE_LASER
	ObjPickup         = 4  // NETOBJTYPE_PICKUP
	ObjFlag           = 5  // NETOBJTYPE_FLAG
	ObjGameData       = 6  // NETOBJTYPE_GAMEDATA
	ObjGameDataTeam   = 7  // NETOBJTYPE_GAMEDATATEAM
	ObjGameDataFlag   = 8  // NETOBJTYPE_GAMEDATAFLAG
	ObjCharacterCore  = 9  // NETOBJTYPE_CHARACTERCORE
	ObjCharacter      = 10 // NETOBJTYPE_CHARACTER
	ObjPlayerInfo     = 11 // NETOBJTYPE_PLAYERINFO
	ObjSpectatorInfo  = 12 // NETOBJTYPE_SPECTATORINFO
	ObjDeClientInfo   = 13 // NETOBJTYPE_DE_CLIENTINFO (demo only)
	ObjDeGameInfo     = 14 // NETOBJTYPE_DE_GAMEINFO (demo only)
	ObjDeTuneParams   = 15 // NETOBJTYPE_DE_TUNEPARAMS (demo only)
	EventCommon       = 16 // NETEVENTTYPE_COMMON
	EventExplosion    = 17 // NETEVENTTYPE_EXPLOSION
	EventSpawn        = 18 // NETEVENTTYPE_SPAWN
	EventHammerHit    = 19 // NETEVENTTYPE_HAMMERHIT
	EventDeath        = 20 // NETEVENTTYPE_DEATH
	EventSoundWorld   = 21 // NETEVENTTYPE_SOUNDWORLD
	EventDamage       = 22 // NETEVENTTYPE_DAMAGE
	ObjPlayerInfoRace = 23 // NETOBJTYPE_PLAYERINFORACE
	ObjGameDataRace   = 24 // NETOBJTYPE_GAMEDATARACE
	NumObjTypes       = 25 // one past the last type id
)

// Sizes in int32 words of the 0.7.5 net objects and events (world spec 5.1).
const (
	SizePlayerInput    = 10
	SizeProjectile     = 6
	SizeLaser          = 5
	SizePickup         = 3
	SizeFlag           = 3
	SizeGameData       = 3
	SizeGameDataTeam   = 2
	SizeGameDataFlag   = 4
	SizeCharacterCore  = 15
	SizeCharacter      = 22
	SizePlayerInfo     = 3
	SizeSpectatorInfo  = 4
	SizeDeClientInfo   = 58
	SizeDeGameInfo     = 5
	SizeDeTuneParams   = 32
	SizeEventCommon    = 2
	SizeEventExplosion = 2
	SizeEventSpawn     = 2
	SizeEventHammerHit = 2
	SizeEventDeath     = 3
	SizeEventSound     = 3
	SizeEventDamage    = 7
	SizePlayerInfoRace = 1
	SizeGameDataRace   = 3
)

// ObjSizes maps a 0.7.5 object/event type id to its size in int32 words
// (0 for unknown ids).
var ObjSizes = [NumObjTypes]int{
	ObjPlayerInput: SizePlayerInput, ObjProjectile: SizeProjectile, ObjLaser: SizeLaser,
	ObjPickup: SizePickup, ObjFlag: SizeFlag, ObjGameData: SizeGameData,
	ObjGameDataTeam: SizeGameDataTeam, ObjGameDataFlag: SizeGameDataFlag,
	ObjCharacterCore: SizeCharacterCore, ObjCharacter: SizeCharacter,
	ObjPlayerInfo: SizePlayerInfo, ObjSpectatorInfo: SizeSpectatorInfo,
	ObjDeClientInfo: SizeDeClientInfo, ObjDeGameInfo: SizeDeGameInfo,
	ObjDeTuneParams: SizeDeTuneParams, EventCommon: SizeEventCommon,
	EventExplosion: SizeEventExplosion, EventSpawn: SizeEventSpawn,
	EventHammerHit: SizeEventHammerHit, EventDeath: SizeEventDeath,
	EventSoundWorld: SizeEventSound, EventDamage: SizeEventDamage,
	ObjPlayerInfoRace: SizePlayerInfoRace, ObjGameDataRace: SizeGameDataRace,
}

// Field offsets inside the Character object (type 10): the 15 CharacterCore
// words come first.
const (
	CharTick           = 0
	CharX              = 1
	CharY              = 2
	CharVelX           = 3
	CharVelY           = 4
	CharAngle          = 5
	CharDirection      = 6
	CharJumped         = 7
	CharHookedPlayer   = 8
	CharHookState      = 9
	CharHookTick       = 10
	CharHookX          = 11
	CharHookY          = 12
	CharHookDx         = 13
	CharHookDy         = 14
	CharHealth         = 15
	CharArmor          = 16
	CharAmmoCount      = 17
	CharWeapon         = 18
	CharEmote          = 19
	CharAttackTick     = 20
	CharTriggeredEvent = 21
)

// Weapons (WEAPON_*) and the special kill "weapons".
const (
	WeaponGame    = -3 // WEAPON_GAME: team change, disconnect, reset
	WeaponSelf    = -2 // WEAPON_SELF: kill command
	WeaponWorld   = -1 // WEAPON_WORLD: death tile, leaving the map
	WeaponHammer  = 0
	WeaponGun     = 1
	WeaponShotgun = 2
	WeaponGrenade = 3
	WeaponLaser   = 4
	WeaponNinja   = 5
	NumWeapons    = 6
)

// Teams (TEAM_*).
const (
	TeamSpectators = -1
	TeamRed        = 0
	TeamBlue       = 1
)

// Pickup types (PICKUP_*).
const (
	PickupHealth  = 0
	PickupArmor   = 1
	PickupGrenade = 2
	PickupShotgun = 3
	PickupLaser   = 4
	PickupNinja   = 5
	PickupGun     = 6
	PickupHammer  = 7
)

// Emotes (EMOTE_*).
const (
	EmoteNormal   = 0
	EmotePain     = 1
	EmoteHappy    = 2
	EmoteSurprise = 3
	EmoteAngry    = 4
	EmoteBlink    = 5
)

// Sound ids (SOUND_*) the server emits as SoundWorld events.
const (
	SoundGunFire         = 0
	SoundShotgunFire     = 1
	SoundGrenadeFire     = 2
	SoundHammerFire      = 3
	SoundHammerHit       = 4
	SoundNinjaFire       = 5
	SoundGrenadeExplode  = 6
	SoundNinjaHit        = 7
	SoundLaserFire       = 8
	SoundLaserBounce     = 9
	SoundWeaponSwitch    = 10
	SoundPlayerPainShort = 11
	SoundPlayerPainLong  = 12
	SoundPlayerDie       = 16
	SoundPlayerSpawn     = 17
	SoundPickupHealth    = 24
	SoundPickupArmor     = 25
	SoundPickupGrenade   = 26
	SoundPickupShotgun   = 27
	SoundPickupNinja     = 28
	SoundWeaponSpawn     = 29
	SoundWeaponNoAmmo    = 30
	SoundHit             = 31
	NumSounds            = 41
)

// Game message ids (GAMEMSG_*) carried by Sv_GameMsg.
const (
	GameMsgTeamSwap          = 0
	GameMsgSpecInvalidID     = 1
	GameMsgTeamShuffle       = 2
	GameMsgTeamBalance       = 3
	GameMsgCTFDrop           = 4
	GameMsgCTFReturn         = 5
	GameMsgTeamAll           = 6
	GameMsgTeamBalanceVictim = 7
	GameMsgCTFGrab           = 8
	GameMsgCTFCapture        = 9
	GameMsgGamePaused        = 10
)

// GameMsgNumArgs is the number of int parameters the 0.7.5 client reads
// after each GAMEMSG id.
var GameMsgNumArgs = [11]int{0, 0, 0, 0, 0, 0, 1, 1, 1, 3, 1}

// Player flags (PLAYERFLAG_*).
const (
	PlayerFlagAdmin      = 1
	PlayerFlagChatting   = 2
	PlayerFlagScoreboard = 4
	PlayerFlagReady      = 8
	PlayerFlagDead       = 16
	PlayerFlagWatching   = 32
	PlayerFlagBot        = 64
	PlayerFlagMask       = 0x7f
)

// Game flags (GAMEFLAG_*), sent in Sv_GameInfo.
const (
	GameFlagTeams    = 1
	GameFlagFlags    = 2
	GameFlagSurvival = 4
	GameFlagRace     = 8
)

// Game state flags (GAMESTATEFLAG_*) in the GameData object.
const (
	GameStateFlagWarmup         = 1
	GameStateFlagSuddenDeath    = 2
	GameStateFlagRoundOver      = 4
	GameStateFlagGameOver       = 8
	GameStateFlagPaused         = 16
	GameStateFlagStartCountdown = 32
)

// Spectator modes (SPEC_*).
const (
	SpecFreeview = 0
	SpecPlayer   = 1
	SpecFlagRed  = 2
	SpecFlagBlue = 3
)

// Flag carrier values in GameDataFlag (FLAG_*).
const (
	FlagMissing = -3
	FlagAtStand = -2
	FlagTaken   = -1
)

// InputStateMask (INPUT_STATE_MASK) bounds the fire / next / prev edge counters.
const InputStateMask = 0x3f

// ErrBadInput is returned by DecodeInput for a wrong-sized or out-of-range
// PlayerInput object; the reference drops such inputs entirely.
var ErrBadInput = errors.New("world: invalid player input")

// Input is the 0.7 PlayerInput object (type 1) a client sends every tick.
// Fire, NextWeapon and PrevWeapon are edge counters (mod 64, odd = held);
// WantedWeapon is 0 for none, else weapon+1.
type Input struct {
	Direction    int32
	TargetX      int32
	TargetY      int32
	Jump         int32
	Fire         int32
	Hook         int32
	PlayerFlags  int32
	WantedWeapon int32
	NextWeapon   int32
	PrevWeapon   int32
}

// DecodeInput decodes the 10-word PlayerInput object and validates it the way
// the 0.7.5 server does (direction -1..1, jump/hook 0..1, flags within 0x7f,
// wanted weapon 0..5). Extra trailing words are ignored, as the engine stores
// the raw input data and the game reads only the object's fields.
func DecodeInput(data []int32) (Input, error) {
	if len(data) < SizePlayerInput {
		return Input{}, ErrBadInput
	}
	in := Input{
		Direction: data[0], TargetX: data[1], TargetY: data[2], Jump: data[3],
		Fire: data[4], Hook: data[5], PlayerFlags: data[6], WantedWeapon: data[7],
		NextWeapon: data[8], PrevWeapon: data[9],
	}
	if !in.Valid() {
		return Input{}, ErrBadInput
	}
	return in, nil
}

// Valid reports whether the input passes the 0.7.5 object validator.
func (in *Input) Valid() bool {
	return in.Direction >= -1 && in.Direction <= 1 &&
		in.Jump >= 0 && in.Jump <= 1 &&
		in.Hook >= 0 && in.Hook <= 1 &&
		in.PlayerFlags&^PlayerFlagMask == 0 &&
		in.WantedWeapon >= 0 && in.WantedWeapon <= NumWeapons-1
}

// Encode writes the input in PlayerInput object layout into dst (at least 10 words).
func (in *Input) Encode(dst []int32) {
	_ = dst[9]
	dst[0], dst[1], dst[2], dst[3], dst[4] = in.Direction, in.TargetX, in.TargetY, in.Jump, in.Fire
	dst[5], dst[6], dst[7], dst[8], dst[9] = in.Hook, in.PlayerFlags, in.WantedWeapon, in.NextWeapon, in.PrevWeapon
}

// countPresses counts the presses (steps landing on an odd value) between two
// edge counters, both taken modulo 64 (the reference CountInput).
func countPresses(prev, cur int32) int {
	prev &= InputStateMask
	cur &= InputStateMask
	n := 0
	for i := prev; i != cur; {
		i = (i + 1) & InputStateMask
		if i&1 != 0 {
			n++
		}
	}
	return n
}

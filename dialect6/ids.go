package dialect6

// Snapshot object and event type ids of the 0.6 game layer (net.md B5.2;
// identical in vanilla 0.6.4 and DDNet 16.4). Objects and events share one
// numbering; every type here has a static size (snap.Sizes6).
const (
	ObjPlayerInput   = 1  // NETOBJTYPE_PLAYERINPUT
	ObjProjectile    = 2  // NETOBJTYPE_PROJECTILE
	ObjLaser         = 3  // NETOBJTYPE_LASER
	ObjPickup        = 4  // NETOBJTYPE_PICKUP
	ObjFlag          = 5  // NETOBJTYPE_FLAG
	ObjGameInfo      = 6  // NETOBJTYPE_GAMEINFO
	ObjGameData      = 7  // NETOBJTYPE_GAMEDATA
	ObjCharacterCore = 8  // NETOBJTYPE_CHARACTERCORE
	ObjCharacter     = 9  // NETOBJTYPE_CHARACTER
	ObjPlayerInfo    = 10 // NETOBJTYPE_PLAYERINFO
	ObjClientInfo    = 11 // NETOBJTYPE_CLIENTINFO
	ObjSpectatorInfo = 12 // NETOBJTYPE_SPECTATORINFO
	EventCommon      = 13 // NETEVENTTYPE_COMMON
	EventExplosion   = 14 // NETEVENTTYPE_EXPLOSION
	EventSpawn       = 15 // NETEVENTTYPE_SPAWN
	EventHammerHit   = 16 // NETEVENTTYPE_HAMMERHIT
	EventDeath       = 17 // NETEVENTTYPE_DEATH
	EventSoundGlobal = 18 // NETEVENTTYPE_SOUNDGLOBAL
	EventSoundWorld  = 19 // NETEVENTTYPE_SOUNDWORLD
	EventDamageInd   = 20 // NETEVENTTYPE_DAMAGEIND
	NumObjTypes      = 21 // one past the last 0.6 type id
)

// Sizes in ints of the 0.6 objects the translator writes (net.md B5.2; the
// same numbers as snap.Sizes6).
const (
	SizeProjectile    = 6
	SizeLaser         = 5
	SizePickup        = 4
	SizeFlag          = 3
	SizeGameInfo      = 8
	SizeGameData      = 4
	SizeCharacterCore = 15
	SizeCharacter     = 22
	SizePlayerInfo    = 5
	SizeClientInfo    = 17
	SizeSpectatorInfo = 3
	SizeEventCommon   = 2
	SizeEventDeath    = 3
	SizeEventSound    = 3
	SizeEventDamage   = 3
)

// Game message ids of the 0.6 game layer (net.md B5.4). Ids 1-25 are the
// same in vanilla 0.6.4 and DDNet; 26-31 exist only in DDNet.
const (
	MsgSvMotd              = 1  // NETMSGTYPE_SV_MOTD
	MsgSvBroadcast         = 2  // NETMSGTYPE_SV_BROADCAST
	MsgSvChat              = 3  // NETMSGTYPE_SV_CHAT
	MsgSvKillMsg           = 4  // NETMSGTYPE_SV_KILLMSG
	MsgSvSoundGlobal       = 5  // NETMSGTYPE_SV_SOUNDGLOBAL
	MsgSvTuneParams        = 6  // NETMSGTYPE_SV_TUNEPARAMS
	MsgSvExtraProjectile   = 7  // NETMSGTYPE_SV_EXTRAPROJECTILE, unused
	MsgSvReadyToEnter      = 8  // NETMSGTYPE_SV_READYTOENTER
	MsgSvWeaponPickup      = 9  // NETMSGTYPE_SV_WEAPONPICKUP
	MsgSvEmoticon          = 10 // NETMSGTYPE_SV_EMOTICON
	MsgSvVoteClearOptions  = 11 // NETMSGTYPE_SV_VOTECLEAROPTIONS
	MsgSvVoteOptionListAdd = 12 // NETMSGTYPE_SV_VOTEOPTIONLISTADD
	MsgSvVoteOptionAdd     = 13 // NETMSGTYPE_SV_VOTEOPTIONADD
	MsgSvVoteOptionRemove  = 14 // NETMSGTYPE_SV_VOTEOPTIONREMOVE
	MsgSvVoteSet           = 15 // NETMSGTYPE_SV_VOTESET
	MsgSvVoteStatus        = 16 // NETMSGTYPE_SV_VOTESTATUS
	MsgClSay               = 17 // NETMSGTYPE_CL_SAY
	MsgClSetTeam           = 18 // NETMSGTYPE_CL_SETTEAM
	MsgClSetSpectatorMode  = 19 // NETMSGTYPE_CL_SETSPECTATORMODE
	MsgClStartInfo         = 20 // NETMSGTYPE_CL_STARTINFO
	MsgClChangeInfo        = 21 // NETMSGTYPE_CL_CHANGEINFO
	MsgClKill              = 22 // NETMSGTYPE_CL_KILL
	MsgClEmoticon          = 23 // NETMSGTYPE_CL_EMOTICON
	MsgClVote              = 24 // NETMSGTYPE_CL_VOTE
	MsgClCallVote          = 25 // NETMSGTYPE_CL_CALLVOTE
	MsgClIsDDNetLegacy     = 26 // NETMSGTYPE_CL_ISDDNETLEGACY (DDNet)
	MsgSvDDRaceTimeLegacy  = 27 // NETMSGTYPE_SV_DDRACETIMELEGACY (DDNet)
	MsgSvRecordLegacy      = 28 // NETMSGTYPE_SV_RECORDLEGACY (DDNet)
	MsgUnused              = 29 // NETMSGTYPE_UNUSED (DDNet)
	MsgSvTeamsStateLegacy  = 30 // NETMSGTYPE_SV_TEAMSSTATELEGACY (DDNet)
	MsgClShowOthersLegacy  = 31 // NETMSGTYPE_CL_SHOWOTHERSLEGACY (DDNet)
	NumMessages            = 32 // one past the last 0.6/DDNet game message id
)

// Constants and enums of the 0.6 game layer (net.md B5.1).
const (
	// MaxClientsVanilla is MAX_CLIENTS of vanilla 0.6: its clients accept
	// client ids 0..15 only. DDNet clients accept 0..63.
	MaxClientsVanilla = 16
	// SpecFreeview is SPEC_FREEVIEW, the 0.6 spectator id of free view.
	SpecFreeview = -1
	// NumTuneParams is the number of ints of the 0.6 Sv_TuneParams (B5.5).
	NumTuneParams = 33
	// LaserDamageTune is the 0.6-only tuning value laser_damage ×100 (5
	// damage per hit, the damage the 0.7 laser does).
	LaserDamageTune = 500
	// MaxVoteOptionListAdd6 is the number of descriptions in every 0.6
	// Sv_VoteOptionListAdd (the count field says how many are used).
	MaxVoteOptionListAdd6 = 15
)

// 0.6 POWERUP_* values of Pickup.type; Pickup.subtype is the weapon for
// PowerupWeapon.
const (
	PowerupHealth = 0 // POWERUP_HEALTH
	PowerupArmor  = 1 // POWERUP_ARMOR
	PowerupWeapon = 2 // POWERUP_WEAPON
	PowerupNinja  = 3 // POWERUP_NINJA
)

// 0.6 PLAYERFLAG_* bits of the Character object's player_flags (and of the
// 0.6 PlayerInput).
const (
	PlayerFlagPlaying    = 1  // PLAYERFLAG_PLAYING
	PlayerFlagInMenu     = 2  // PLAYERFLAG_IN_MENU
	PlayerFlagChatting   = 4  // PLAYERFLAG_CHATTING
	PlayerFlagScoreboard = 8  // PLAYERFLAG_SCOREBOARD
	PlayerFlagAim        = 16 // PLAYERFLAG_AIM (DDNet)
)

// 0.6 GAMEFLAG_* and GAMESTATEFLAG_* bits of the GameInfo object.
const (
	GameFlagTeams = 1 // GAMEFLAG_TEAMS
	GameFlagFlags = 2 // GAMEFLAG_FLAGS

	GameStateFlagGameOver    = 1 // GAMESTATEFLAG_GAMEOVER
	GameStateFlagSuddenDeath = 2 // GAMESTATEFLAG_SUDDENDEATH
	GameStateFlagPaused      = 4 // GAMESTATEFLAG_PAUSED
)

// 0.6 Sv_Chat team values. Vanilla 0.6 accepts 0 and 1 (and -1); DDNet also
// renders 2 (a whisper the receiver sent) and 3 (a whisper it received).
const (
	ChatAll             = 0
	ChatTeam            = 1
	ChatWhisperSent     = 2
	ChatWhisperReceived = 3
)

// Sound ids used by the translation (the 0.6 and 0.7 sound lists agree,
// net.md A5.1, B5.1).
const (
	SoundPlayerJump       = 15 // SOUND_PLAYER_JUMP
	SoundHookAttachGround = 21 // SOUND_HOOK_ATTACH_GROUND
	SoundHookAttachPlayer = 22 // SOUND_HOOK_ATTACH_PLAYER
	SoundHookNoAttach     = 23 // SOUND_HOOK_NOATTACH
	SoundCtfDrop          = 35 // SOUND_CTF_DROP
	SoundCtfReturn        = 36 // SOUND_CTF_RETURN
	SoundCtfGrabPl        = 37 // SOUND_CTF_GRAB_PL
	SoundCtfGrabEn        = 38 // SOUND_CTF_GRAB_EN
	SoundCtfCapture       = 39 // SOUND_CTF_CAPTURE
	NumSounds             = 41 // NUM_SOUNDS
)

var msgNames = [NumMessages]string{
	"invalid", "Sv_Motd", "Sv_Broadcast", "Sv_Chat", "Sv_KillMsg", "Sv_SoundGlobal",
	"Sv_TuneParams", "Sv_ExtraProjectile", "Sv_ReadyToEnter", "Sv_WeaponPickup",
	"Sv_Emoticon", "Sv_VoteClearOptions", "Sv_VoteOptionListAdd", "Sv_VoteOptionAdd",
	"Sv_VoteOptionRemove", "Sv_VoteSet", "Sv_VoteStatus", "Cl_Say", "Cl_SetTeam",
	"Cl_SetSpectatorMode", "Cl_StartInfo", "Cl_ChangeInfo", "Cl_Kill", "Cl_Emoticon",
	"Cl_Vote", "Cl_CallVote", "Cl_IsDDNetLegacy", "Sv_DDRaceTimeLegacy",
	"Sv_RecordLegacy", "Unused", "Sv_TeamsStateLegacy", "Cl_ShowOthersLegacy",
}

// MsgName returns the spec name of a 0.6 game message id ("Cl_Say"), or
// "unknown".
func MsgName(id int32) string {
	if id < 0 || id >= NumMessages {
		return "unknown"
	}
	return msgNames[id]
}

package twmap

// Map item types (MAPITEMTYPE_*, world spec 1.2).
const (
	ItemTypeVersion   = 0 // MAPITEMTYPE_VERSION
	ItemTypeInfo      = 1 // MAPITEMTYPE_INFO
	ItemTypeImage     = 2 // MAPITEMTYPE_IMAGE
	ItemTypeEnvelope  = 3 // MAPITEMTYPE_ENVELOPE
	ItemTypeGroup     = 4 // MAPITEMTYPE_GROUP
	ItemTypeLayer     = 5 // MAPITEMTYPE_LAYER
	ItemTypeEnvPoints = 6 // MAPITEMTYPE_ENVPOINTS
)

// MapVersion is the only accepted payload of the VERSION item
// (CMapItemVersion::CURRENT_VERSION).
const MapVersion = 1

// Layer types (LAYERTYPE_*).
const (
	LayerTypeInvalid = 0 // LAYERTYPE_INVALID
	LayerTypeGame    = 1 // LAYERTYPE_GAME (never written by editors)
	LayerTypeTiles   = 2 // LAYERTYPE_TILES
	LayerTypeQuads   = 3 // LAYERTYPE_QUADS
)

// Layer and tile-layer flags.
const (
	// LayerFlagDetail is LAYERFLAG_DETAIL (layer header flags bit 0).
	LayerFlagDetail = 1
	// TilesLayerFlagGame is TILESLAYERFLAG_GAME: this tile layer is the game
	// (collision and entity) layer.
	TilesLayerFlagGame = 1
)

// Tile flags (TILEFLAG_*), the second byte of a stored tile.
const (
	TileFlagVFlip  = 1 // TILEFLAG_VFLIP
	TileFlagHFlip  = 2 // TILEFLAG_HFLIP
	TileFlagOpaque = 4 // TILEFLAG_OPAQUE
	TileFlagRotate = 8 // TILEFLAG_ROTATE
)

// Game-layer tile indices below the entity range (TILE_*, world spec 1.3).
const (
	TileAir    = 0 // TILE_AIR
	TileSolid  = 1 // TILE_SOLID: solid, hookable
	TileDeath  = 2 // TILE_DEATH
	TileNoHook = 3 // TILE_NOHOOK: solid, unhookable
)

// EntityOffset is ENTITY_OFFSET (255 - 16*4): a game tile with index >= 192
// is entity index-EntityOffset.
const EntityOffset = 191

// Entity numbers (ENTITY_*, world spec 1.3). Game tile index =
// EntityOffset + entity.
const (
	EntityNull          = 0  // ENTITY_NULL, ignored
	EntitySpawn         = 1  // ENTITY_SPAWN, neutral spawn (tile 192)
	EntitySpawnRed      = 2  // ENTITY_SPAWN_RED (tile 193)
	EntitySpawnBlue     = 3  // ENTITY_SPAWN_BLUE (tile 194)
	EntityFlagStandRed  = 4  // ENTITY_FLAGSTAND_RED (tile 195)
	EntityFlagStandBlue = 5  // ENTITY_FLAGSTAND_BLUE (tile 196)
	EntityArmor1        = 6  // ENTITY_ARMOR_1 (tile 197)
	EntityHealth1       = 7  // ENTITY_HEALTH_1 (tile 198)
	EntityWeaponShotgun = 8  // ENTITY_WEAPON_SHOTGUN (tile 199)
	EntityWeaponGrenade = 9  // ENTITY_WEAPON_GRENADE (tile 200)
	EntityPowerupNinja  = 10 // ENTITY_POWERUP_NINJA (tile 201)
	EntityWeaponLaser   = 11 // ENTITY_WEAPON_LASER (tile 202)
	// NumEntities is NUM_ENTITIES: entity numbers are below this.
	NumEntities = 12
)

// TileSize is the size of one tile in world units.
const TileSize = 32

// Item payload sizes in int32 words, as the 0.7 editor writes them.
const (
	infoItemInts     = 5
	imageItemIntsV1  = 6
	imageItemIntsV2  = 7
	groupItemIntsV3  = 15
	layerHeaderInts  = 3
	tilemapItemInts  = 18 // header + tilemap version 3/4 fields incl. name
	tilemapMinInts   = 15 // enough to reach the data index
	quadsItemInts    = 10
	quadsMinInts     = 7 // enough to reach the image index
	tileBytes        = 4
	nameInts         = 3 // packed name of groups and layers (StrToInts)
	groupMinInts     = 7 // version..num_layers
	groupClipMinInts = 12
)

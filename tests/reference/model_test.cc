// Oracle cases for the reference model: table cells and the rules' own
// worked numbers, computed by hand from the seeds (not from the engine).
#include "tests/reference/model.h"

#include "gtest/gtest.h"

namespace gunbai::reference {
namespace {

TEST(ReferenceModelTest, RangeBoundaries) {
  EXPECT_EQ(BandFromDistance(0, false), Band::kEffective);
  EXPECT_EQ(BandFromDistance(80, false), Band::kEffective);
  EXPECT_EQ(BandFromDistance(81, false), Band::kLong);
  EXPECT_EQ(BandFromDistance(150, false), Band::kLong);
  EXPECT_EQ(BandFromDistance(151, false), Band::kOut);
  EXPECT_EQ(BandFromDistance(30, true), Band::kEffective);
  EXPECT_EQ(BandFromDistance(31, true), Band::kOut);
}

TEST(ReferenceModelTest, FirstVolleyArquebusAtCavalryEffective) {
  // +2 first volley +1 arquebus at cavalry +1 effective = +4; 1+2+4 = 7
  // misses, 2+2+4 = 8 hits.
  FireInput in;
  in.first_volley = true;
  in.weapon = Missile::kArquebus;
  in.target_mounted = true;
  in.target_armour = Armour::kHeavy;
  in.effective = true;
  EXPECT_EQ(SumTerms(FiringFactors(in)), 4);
  EXPECT_EQ(CountHits({1, 2, 2, 2}, 4), 1);
}

TEST(ReferenceModelTest, DisorderedFirstVolleyAndBuildingCover) {
  FireInput in;
  in.first_volley = true;
  in.firer_disordered = true;  // no +2, -1
  in.weapon = Missile::kBow;
  in.target_armour = Armour::kHeavy;  // -1
  in.target_in_building = true;       // -2, and no -1 for cover
  in.target_in_cover = true;
  EXPECT_EQ(SumTerms(FiringFactors(in)), -4);
}

TEST(ReferenceModelTest, StandsThatFire) {
  EXPECT_EQ(MaxFiringStands(8, 4, false, false), 8);
  EXPECT_EQ(MaxFiringStands(8, 4, true, false), 4);
  EXPECT_EQ(MaxFiringStands(5, 3, false, false), 5);
  EXPECT_EQ(MaxFiringStands(8, 4, false, true), 2);
}

TEST(ReferenceModelTest, HitsCarryOver) {
  const StandLoss a = ApplyHits(2, 2, 6);  // 2 carried + 2 = 1 stand, 1 left
  EXPECT_EQ(a.lost, 1);
  EXPECT_EQ(a.carried, 1);
  const StandLoss b = ApplyHits(0, 7, 2);  // more than the unit has
  EXPECT_EQ(b.lost, 2);
}

TEST(ReferenceModelTest, LeaderLoss) {
  EXPECT_TRUE(LeaderKilled(1, 3, false));   // 4: killed
  EXPECT_FALSE(LeaderKilled(2, 3, false));  // 5: survives
  EXPECT_TRUE(LeaderKilled(3, 5, true));    // headquarters counts 1: 4
}

TEST(ReferenceModelTest, MoraleTableAndNaturals) {
  MoraleInput in;
  in.reason = 1;
  in.quality = Quality::kSeasoned;                                 // 6+
  in.stands_lost = 1;                                              // -2
  EXPECT_EQ(MoraleTest(in, 4, 3).result, MoraleResult::kHalt);     // 5: by 1
  EXPECT_EQ(MoraleTest(in, 3, 3).result, MoraleResult::kRetire);   // 4: by 2
  EXPECT_EQ(MoraleTest(in, 2, 3).result, MoraleResult::kRetreat);  // 3: by 3
  EXPECT_EQ(MoraleTest(in, 1, 2).result, MoraleResult::kRout);     // 1: by 5
  in.reason = 4;
  EXPECT_EQ(MoraleTest(in, 2, 3).result, MoraleResult::kHalt);
  EXPECT_EQ(MoraleTest(in, 1, 2).result, MoraleResult::kRetire);
  EXPECT_EQ(MoraleTest(in, 1, 1).result, MoraleResult::kRout);  // natural 2
  in.reason = 1;
  in.out_of_command = true;
  in.enemy_flank_or_rear_near = true;
  EXPECT_EQ(MoraleTest(in, 6, 6).result, MoraleResult::kFrenzy);  // Samurai
  in.troop = Troop::kHatamoto;
  EXPECT_EQ(MoraleTest(in, 6, 6).result, MoraleResult::kNoEffect);
  in.troop = Troop::kMonk;
  EXPECT_EQ(MoraleTest(in, 5, 6).result, MoraleResult::kFrenzy);
  in.reason = 8;
  in.routing = true;
  EXPECT_EQ(MoraleTest(in, 6, 6).result, MoraleResult::kRally);
  EXPECT_EQ(MoraleTest(in, 1, 1).result, MoraleResult::kDispersed);
  in.hit_by_fire_this_turn = true;
  EXPECT_EQ(MoraleTest(in, 6, 6).result, MoraleResult::kNoEffect);
}

TEST(ReferenceModelTest, MeleeWorkedExample) {
  // Cavalry with lance, charging, daimyo, against foot: +1 lance +2 charging
  // +2 lance first round +1 daimyo = +6 (tests/data README, seq 24).
  MeleeSideInput cav, foot;
  cav.mobility = Mobility::kMounted;
  cav.weapon = MeleeWeapon::kLance;
  cav.daimyo_attached = true;
  cav.charged_into_contact = true;
  cav.quality = Quality::kSeasoned;
  foot.quality = Quality::kRaw;
  foot.troop = Troop::kAshigaru;
  foot.weapon =
      EffectiveMeleeWeapon(Troop::kAshigaru, Missile::kBow, MeleeWeapon::kNone);
  EXPECT_EQ(SumTerms(MeleeModifiers(cav, foot, 1)), 6);
  cav.armour = Armour::kMedium;
  // Improvised vs mounted 0, enemy medium -1, enemy higher quality -1.
  EXPECT_EQ(SumTerms(MeleeModifiers(foot, cav, 1)), -2);
  foot.in_building = true;  // no charge bonus, -2
  EXPECT_EQ(SumTerms(MeleeModifiers(cav, foot, 1)), 2);
  EXPECT_EQ(JudgeMelee(2, 0).loser_routs, true);
  EXPECT_EQ(JudgeMelee(3, 2).loser_routs, false);
  EXPECT_EQ(JudgeMelee(1, 1).outcome, MeleeOutcome::kDraw);
}

TEST(ReferenceModelTest, MeleeStands) {
  MeleeSideInput spear, other;
  spear.weapon = MeleeWeapon::kLongSpear;
  spear.stands = 8;
  spear.stands_per_rank = 4;
  spear.front_in_contact = 2;
  EXPECT_EQ(MaxMeleeStands(spear, other, 1), 4);  // 2 ranks in round 1
  spear.enemy_fighting_to_flank_or_rear = true;
  EXPECT_EQ(MaxMeleeStands(spear, other, 1), 2);
  spear.overlaps = 1;
  EXPECT_EQ(MaxMeleeStands(spear, other, 2), 5);
  other.troop = Troop::kHeadquarters;
  EXPECT_EQ(MaxMeleeStands(spear, other, 2), 3);  // 1 in front, 2 ranks, +1
  other.in_building = true;
  EXPECT_EQ(MaxMeleeStands(spear, other, 2), 2);
}

TEST(ReferenceModelTest, BothSidesInBuildingsAndImprovisedSpears) {
  // R reading 23: each side's building formation gives the other -2, and a
  // charger against a building gets no bonus. Foot long spear, charging:
  // +1 weapon (vs foot) +2 first round, no +1 charging, -2 enemy in
  // building = +1; the defender with a pole arm: +2 +1 first round -2 = +1.
  MeleeSideInput a, b;
  a.weapon = MeleeWeapon::kLongSpear;
  a.charged_into_contact = true;
  a.in_building = true;
  b.weapon = MeleeWeapon::kPoleArm;
  b.in_building = true;
  EXPECT_EQ(SumTerms(MeleeModifiers(a, b, 1)), 1);
  EXPECT_EQ(SumTerms(MeleeModifiers(b, a, 1)), 1);
  // R reading 21: a headquarters or missile Ashigaru whose order of battle
  // names a long spear fights improvised (so no long-spear morale +1).
  EXPECT_EQ(EffectiveMeleeWeapon(Troop::kHeadquarters, Missile::kNone,
                                 MeleeWeapon::kLongSpear),
            MeleeWeapon::kImprovised);
  EXPECT_EQ(EffectiveMeleeWeapon(Troop::kAshigaru, Missile::kArquebus,
                                 MeleeWeapon::kLongSpear),
            MeleeWeapon::kImprovised);
  EXPECT_EQ(EffectiveMeleeWeapon(Troop::kAshigaru, Missile::kNone,
                                 MeleeWeapon::kLongSpear),
            MeleeWeapon::kLongSpear);
}

}  // namespace
}  // namespace gunbai::reference

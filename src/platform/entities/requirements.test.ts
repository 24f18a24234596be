import { describe, expect, it } from 'vitest';
import { accreditationRequirements, type RequirementFile } from './requirements';

const file = (file_type: string, meta: Record<string, unknown> = {}): RequirementFile => ({
  file_type,
  meta,
});
const unmet = (addressOnLicence: boolean, files: RequirementFile[]) =>
  accreditationRequirements(addressOnLicence, files)
    .filter((r) => !r.met)
    .map((r) => r.kind);

describe('accreditationRequirements', () => {
  it('asks for a letter and both sides of the licence, with what meets each', () => {
    expect(accreditationRequirements(true, [])).toEqual([
      {
        kind: 'accreditation_letter',
        file_types: ['letter_of_accreditation', 'executed_letter_of_accreditation'],
        min_files: 1,
        met: false,
      },
      { kind: 'drivers_license', file_types: ['drivers_license'], min_files: 2, met: false },
    ]);
  });

  it('takes either kind of letter', () => {
    expect(unmet(true, [file('letter_of_accreditation')])).toEqual(['drivers_license']);
    expect(unmet(true, [file('executed_letter_of_accreditation')])).toEqual(['drivers_license']);
  });

  it('takes two licence photos, or one that shows both sides, but not one side alone', () => {
    const letter = file('letter_of_accreditation');
    expect(unmet(true, [letter, file('drivers_license', { side: 'front' })])).toEqual(['drivers_license']);
    expect(unmet(true, [letter, file('drivers_license'), file('drivers_license')])).toEqual([]);
    expect(unmet(true, [letter, file('drivers_license', { side: 'both' })])).toEqual([]);
  });

  it('asks for a utility bill only when the licence does not show the current address', () => {
    const complete = [file('letter_of_accreditation'), file('drivers_license', { side: 'both' })];
    expect(unmet(false, complete)).toEqual(['utility_bill']);
    expect(accreditationRequirements(false, complete).at(-1)).toEqual({
      kind: 'utility_bill',
      file_types: ['utility_bill'],
      min_files: 1,
      met: false,
    });
    expect(unmet(false, [...complete, file('utility_bill')])).toEqual([]);
  });

  it('counts files of other kinds towards nothing', () => {
    expect(unmet(true, [file('utility_bill'), file('avatar'), file('avatar')])).toEqual([
      'accreditation_letter',
      'drivers_license',
    ]);
  });
});

/**
 * File names (Socrata dataset ids) and column lists of every FMCSA format the generator writes
 * (FMCSA's file layouts, docs/data.md). These are a contract: importers and tests depend on them.
 */
import { CENSUS_COLUMNS } from '../../src/census/columns.ts'

const cols = (s: string): readonly string[] => Object.freeze(s.trim().split(/\s+/))

/** Dataset ids; each file in a dataset directory is `<id>.csv`. */
export const FILE_IDS = {
  census: 'az4n-8mr2',
  legacyCarrier: '6eyk-hxee',
  legacyActPendInsur: 'qh9u-swkp',
  legacyInsHist: '6sqe-dvqs',
  legacyAuthHist: '9mw4-x3tu',
  legacyRevocation: 'sa6p-acbp',
  legacyBoc3: '2emp-mxtb',
  motusCarrier: 'inys-ebih',
  motusInsur: 'c5y8-a4uz',
  motusInsHist: '3uet-3z4i',
  motusAuthHist: 'yu5v-wbh6',
  motusRevokeSuspend: 'wb4f-neki',
  motusBoc3: '6snj-ed7q',
  smsCensus: 'kjg3-diqy',
  smsInspection: 'rbkj-cgst',
  smsCrash: '4wxs-vbns',
  smsViolation: '8mt8-2mdr',
  smsAbPassProperty: '4y6x-dmck',
  smsCPassProperty: 'h9zy-gjn8',
  smsAbPass: 'm3ry-qcip',
  smsCPass: 'h3zn-uid9',
  oosOrders: 'p2mt-9ige',
  mcmisInspection: 'fx4q-ay7w',
  mcmisUnits: 'wt8s-2hbx',
} as const
export type FileKey = keyof typeof FILE_IDS
export const FILE_KEYS = Object.keys(FILE_IDS) as FileKey[]

/** Company Census `az4n-8mr2`: the importer's own 147-column list (generate.test.ts checks it against the spec). */
export { CENSUS_COLUMNS }

/** Legacy Carrier `6eyk-hxee` (43, positional). */
export const LEGACY_CARRIER_COLUMNS = cols(`
DOCKET_NUMBER DOT_NUMBER MX_TYPE RFC_NUMBER COMMON_STAT CONTRACT_STAT BROKER_STAT COMMON_APP_PEND
CONTRACT_APP_PEND BROKER_APP_PEND COMMON_REV_PEND CONTRACT_REV_PEND BROKER_REV_PEND PROPERTY_CHK
PASSENGER_CHK HHG_CHK PRIVATE_AUTH_CHK ENTERPRISE_CHK MIN_COV_AMOUNT CARGO_REQ BOND_REQ BIPD_FILE
CARGO_FILE BOND_FILE UNDELIVERABLE_MAIL DBA_NAME LEGAL_NAME BUS_STREET_PO BUS_COLONIA BUS_CITY
BUS_STATE_CODE BUS_CTRY_CODE BUS_ZIP_CODE BUS_TELNO BUS_FAX MAIL_STREET_PO MAIL_COLONIA MAIL_CITY
MAIL_STATE_CODE MAIL_CTRY_CODE MAIL_ZIP_CODE MAIL_TELNO MAIL_FAX`)

/** Legacy ActPendInsur `qh9u-swkp` (11, SODA names). */
export const LEGACY_ACTPENDINSUR_COLUMNS = cols(`
docket_number dot_number ins_form_code mod_col_1 name_company policy_no trans_date
underl_lim_amount max_cov_amount effective_date cancl_effective_date`)

/**
 * Legacy InsHist `6sqe-dvqs` (17, positional). FMCSA's data definitions name them by meaning only; these
 * header names are ours (the importer reads by position and only checks the first one).
 */
export const LEGACY_INSHIST_COLUMNS = cols(`
docket_number dot_number ins_form_code cancl_method cancl_form ins_type_ind ins_type_desc
policy_no min_cov_amount ins_class_code effective_date underl_lim_amount max_cov_amount
cancl_effective_date specific_cancl_method branch name_company`)

/** Legacy AuthHist `9mw4-x3tu` (9, positional). */
export const LEGACY_AUTHHIST_COLUMNS = cols(`
docket_number dot_number sub_number mod_col_1 original_action_desc orig_served_date
disp_action_desc disp_decided_date disp_served_date`)

/** Legacy Revocation `sa6p-acbp` (6): this exact header. */
export const LEGACY_REVOCATION_COLUMNS = cols(`
DOCKET_NUMBER DOT_NUMBER TYPE_LICENSE ORDER1_SERVE_DATE ORDER2_TYPE_DESC order2_effective_Date`)

/** Legacy BOC3 `2emp-mxtb` (9, positional; header names are ours). */
export const LEGACY_BOC3_COLUMNS = cols(`
docket_number dot_number company_name attention_to_or_title street_po city state country zip_code`)

export const MOTUS_CARRIER_COLUMNS = cols(`
DOCKET_NUMBER USDOT_NUMBER RFC_NUMBER OP_AUTH_TYPE OP_AUTH_STATUS MIN_COV_AMOUNT CARGO_REQ
BOND_REQ BIPD_FILE CARGO_FILE BOND_FILE BUS_UNDELIVERABLE_MAIL MAIL_UNDELIVERABLE_MAIL DBA_NAME
LEGAL_NAME BUS_STREET_PO BUS_COLONIA BUS_CITY BUS_STATE_CODE BUS_CTRY_CODE BUS_ZIP_CODE BUS_TELNO
MAIL_STREET_PO MAIL_COLONIA MAIL_CITY MAIL_STATE_CODE MAIL_CTRY_CODE MAIL_ZIP_CODE`)

export const MOTUS_INSUR_COLUMNS = cols(`
DOCKET_NUMBER USDOT_NUMBER INS_FORM_CODE INS_TYPE_CODE INS_CLASS_CODE MAX_COV_AMOUNT
UNDERL_LIM_AMOUNT POLICY_NO EFFECTIVE_DATE INSURANCE_COMPANY_NAME TRANS_DATE`)

export const MOTUS_INSHIST_COLUMNS = cols(`
DOCKET_NUMBER USDOT_NUMBER INS_FORM_CODE FILING_STATUS_REASON INS_TYPE_CODE INS_TYPE_IND
POLICY_NO INS_TYPE_DESC MIN_COV_AMOUNT INS_CLASS_CODE EFFECTIVE_DATE UNDERL_LIM_AMOUNT
MAX_COV_AMOUNT CANCL_EFFECTIVE_DATE INSURANCE_COMPANY_NAME`)

export const MOTUS_AUTHHIST_COLUMNS = cols(`
DOCKET_NUMBER USDOT_NUMBER OP_AUTH_TYPE OP_AUTH_STATUS REASON STATUS_CHANGE_DATE`)

export const MOTUS_REVOKESUSPEND_COLUMNS = cols(`
DOCKET_NUMBER USDOT_NUMBER OP_AUTH_TYPE ORDER1_SERVE_DATE ORDER1_TYPE_DESC ORDER1_EFFECTIVE_DATE`)

export const MOTUS_BOC3_COLUMNS = cols(`
docket_number usdot_number co_name street_po city state_code zip_code ctry_code`)

/** SMS Input Motor Carrier Census `kjg3-diqy` (42, FMCSA's export order). */
export const SMS_CENSUS_COLUMNS = cols(`
DOT_NUMBER LEGAL_NAME DBA_NAME CARRIER_OPERATION HM_FLAG PC_FLAG PHY_STREET PHY_CITY PHY_STATE
PHY_ZIP PHY_COUNTRY MAILING_STREET MAILING_CITY MAILING_STATE MAILING_ZIP MAILING_COUNTRY TELEPHONE
FAX EMAIL_ADDRESS MCS150_DATE MCS150_MILEAGE MCS150_MILEAGE_YEAR ADD_DATE OIC_STATE NBR_POWER_UNIT
DRIVER_TOTAL RECENT_MILEAGE RECENT_MILEAGE_YEAR VMT_SOURCE_ID PRIVATE_ONLY AUTHORIZED_FOR_HIRE
EXEMPT_FOR_HIRE PRIVATE_PROPERTY PRIVATE_PASSENGER_BUSINESS PRIVATE_PASSENGER_NONBUSINESS MIGRANT
US_MAIL FEDERAL_GOVERNMENT STATE_GOVERNMENT LOCAL_GOVERNMENT INDIAN_TRIBE OP_OTHER`)

/** SMS Input Inspection `rbkj-cgst` (39), spelled as in FMCSA's SMS input readme. */
export const SMS_INSPECTION_COLUMNS = cols(`
Unique_ID Report_Number Report_State DOT_Number Insp_Date Insp_level_ID County_code_State
Time_Weight Driver_OOS_Total Vehicle_OOS_Total Total_Hazmat_Sent OOS_Total Hazmat_OOS_Total
Hazmat_Placard_req Unit_Type_Desc Unit_Make Unit_License Unit_License_State VIN Unit_Decal_Number
Unit_Type_Desc2 Unit_Make2 Unit_License2 Unit_License_State2 VIN2 Unit_Decal_Number2 Unsafe_Insp
Fatigued_Insp Dr_Fitness_Insp Subt_Alcohol_Insp Vh_Maint_Insp HM_Insp BASIC_Viol Unsafe_Viol
Fatigued_Viol Dr_Fitness_Viol Subt_Alcohol_Viol Vh_Maint_Viol HM_Viol`)

/** SMS Input Crash `4wxs-vbns` (22). */
export const SMS_CRASH_COLUMNS = cols(`
Report_Number Report_Seq_No DOT_Number Report_Date Report_State Fatalities Injuries Tow_Away
Hazmat_Released Trafficway_Desc Access_Control_Desc Road_Surface_Condition_Desc
Weather_Condition_Desc Light_Condition_Desc Vehicle_ID_Number Vehicle_License_Number
Vehicle_License_State Severity_Weight Time_Weight Citation_Issued_Desc Seq_Num Not_Preventable`)

/** SMS Input Violation `8mt8-2mdr` (13). */
export const SMS_VIOLATION_COLUMNS = cols(`
Unique_ID Insp_Date DOT_Number Viol_Code BASIC_Desc OOS_Indicator OOS_Weight Severity_Weight
Time_Weight Total_Severity_Wght Section_Desc Group_Desc Viol_Unit`)

/** The five public BASICs, in file order. */
export const BASIC_PREFIXES = [
  'UNSAFE_DRIV',
  'HOS_DRIV',
  'DRIV_FIT',
  'CONTR_SUBST',
  'VEH_MAINT',
] as const
export type BasicPrefix = (typeof BASIC_PREFIXES)[number]

const RESULT_TOTALS = cols(`
DOT_NUMBER INSP_TOTAL DRIVER_INSP_TOTAL DRIVER_OOS_INSP_TOTAL VEHICLE_INSP_TOTAL
VEHICLE_OOS_INSP_TOTAL`)

/** SMS AB/C PassProperty (21). */
export const SMS_PASSPROPERTY_COLUMNS = Object.freeze([
  ...RESULT_TOTALS,
  ...BASIC_PREFIXES.flatMap((b) => [`${b}_INSP_W_VIOL`, `${b}_MEASURE`, `${b}_AC`]),
])

/** SMS AB/C Pass (36). */
export const SMS_PASS_COLUMNS = Object.freeze([
  ...RESULT_TOTALS,
  ...BASIC_PREFIXES.flatMap((b) => [
    `${b}_INSP_W_VIOL`,
    `${b}_MEASURE`,
    `${b}_PCT`,
    `${b}_RD_ALERT`,
    `${b}_AC`,
    `${b}_BASIC_ALERT`,
  ]),
])

/** OUT OF SERVICE ORDERS `p2mt-9ige` (7). */
export const OOS_COLUMNS = cols(
  `DOT_NUMBER LEGAL_NAME DBA_NAME OOS_DATE OOS_REASON STATUS RESCIND_DATE`,
)

/** MCMIS Vehicle Inspection File `fx4q-ay7w` (63 columns, as FMCSA publishes it). */
export const MCMIS_INSPECTION_COLUMNS = cols(`
CHANGE_DATE INSPECTION_ID DOT_NUMBER REPORT_STATE REPORT_NUMBER INSP_DATE INSP_START_TIME
INSP_END_TIME REGISTRATION_DATE REGION CI_STATUS_CODE LOCATION LOCATION_DESC COUNTY_CODE_STATE
COUNTY_CODE INSP_LEVEL_ID SERVICE_CENTER CENSUS_SOURCE_ID INSP_FACILITY SHIPPER_NAME
SHIPPING_PAPER_NUMBER CARGO_TANK HAZMAT_PLACARD_REQ SNET_VERSION_NUMBER SNET_SEARCH_DATE
ALCOHOL_CONTROL_SUB DRUG_INTRDCTN_SEARCH DRUG_INTRDCTN_ARRESTS SIZE_WEIGHT_ENF TRAFFIC_ENF
LOCAL_ENF_JURISDICTION PEN_CEN_MATCH FINAL_STATUS_DATE POST_ACC_IND GROSS_COMB_VEH_WT VIOL_TOTAL
OOS_TOTAL DRIVER_VIOL_TOTAL DRIVER_OOS_TOTAL VEHICLE_VIOL_TOTAL VEHICLE_OOS_TOTAL
HAZMAT_VIOL_TOTAL HAZMAT_OOS_TOTAL SNET_SEQUENCE_ID TRANSACTION_CODE TRANSACTION_DATE UPLOAD_DATE
UPLOAD_FIRST_BYTE UPLOAD_DOT_NUMBER UPLOAD_SEARCH_INDICATOR CENSUS_SEARCH_DATE SNET_INPUT_DATE
SOURCE_OFFICE MCMIS_ADD_DATE INSP_CARRIER_NAME INSP_CARRIER_STREET INSP_CARRIER_CITY
INSP_CARRIER_STATE INSP_CARRIER_ZIP_CODE INSP_COLONIA DOCKET_NUMBER INSP_INTERSTATE
INSP_CARRIER_STATE_ID`)

/** MCMIS Inspections Per Unit `wt8s-2hbx` (12). */
export const MCMIS_UNIT_COLUMNS = cols(`
CHANGE_DATE INSPECTION_ID INSP_UNIT_ID INSP_UNIT_TYPE_ID INSP_UNIT_NUMBER INSP_UNIT_MAKE
INSP_UNIT_COMPANY INSP_UNIT_LICENSE INSP_UNIT_LICENSE_STATE INSP_UNIT_VEHICLE_ID_NUMBER
INSP_UNIT_DECAL INSP_UNIT_DECAL_NUMBER`)

/** Header of each file. */
export const FILE_COLUMNS: Record<FileKey, readonly string[]> = {
  census: CENSUS_COLUMNS,
  legacyCarrier: LEGACY_CARRIER_COLUMNS,
  legacyActPendInsur: LEGACY_ACTPENDINSUR_COLUMNS,
  legacyInsHist: LEGACY_INSHIST_COLUMNS,
  legacyAuthHist: LEGACY_AUTHHIST_COLUMNS,
  legacyRevocation: LEGACY_REVOCATION_COLUMNS,
  legacyBoc3: LEGACY_BOC3_COLUMNS,
  motusCarrier: MOTUS_CARRIER_COLUMNS,
  motusInsur: MOTUS_INSUR_COLUMNS,
  motusInsHist: MOTUS_INSHIST_COLUMNS,
  motusAuthHist: MOTUS_AUTHHIST_COLUMNS,
  motusRevokeSuspend: MOTUS_REVOKESUSPEND_COLUMNS,
  motusBoc3: MOTUS_BOC3_COLUMNS,
  smsCensus: SMS_CENSUS_COLUMNS,
  smsInspection: SMS_INSPECTION_COLUMNS,
  smsCrash: SMS_CRASH_COLUMNS,
  smsViolation: SMS_VIOLATION_COLUMNS,
  smsAbPassProperty: SMS_PASSPROPERTY_COLUMNS,
  smsCPassProperty: SMS_PASSPROPERTY_COLUMNS,
  smsAbPass: SMS_PASS_COLUMNS,
  smsCPass: SMS_PASS_COLUMNS,
  oosOrders: OOS_COLUMNS,
  mcmisInspection: MCMIS_INSPECTION_COLUMNS,
  mcmisUnits: MCMIS_UNIT_COLUMNS,
}
